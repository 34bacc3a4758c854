//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// The pages of the test nginx images (hack/images): the same nginx, two
// tags.
const (
	pageV1 = "seed-operator test page, version 1"
	pageV2 = "seed-operator test page, version 2"
)

// On the real node containers run: the kubelet pulls the images built here,
// applies the restricted profile, runs the probes; the pods are on a
// network, behind Services that kube-proxy programs and names CoreDNS
// resolves.
var _ = Describe("On the real node", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = realNamespace(ctx, "real")
	})

	key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: namespace, Name: name} }

	webServer := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.WebServer)) *seedv1alpha1.WebServer {
		return readyWebServer(ctx, namespace, name, mutate...)
	}
	service := func(ctx SpecContext, ws *seedv1alpha1.WebServer) *corev1.Service {
		s := &corev1.Service{}
		Expect(k8sClient.Get(ctx, key(ws.Name+"-service"), s)).To(Succeed())
		return s
	}

	It("serves a WebServer's page through its Service, by name from a pod and by node port from the host, from every replica",
		func(ctx SpecContext) {
			ws := webServer(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.ServiceType = corev1.ServiceTypeNodePort })

			By("a pod fetching the Service by its DNS name")
			Expect(fetchFromPod(ctx, namespace, fmt.Sprintf("http://web-service.%s.svc/", namespace))).To(ContainSubstring(pageV1))

			By("the host fetching the node port")
			nodePort := service(ctx, ws).Spec.Ports[0].NodePort
			Expect(hostGet(fmt.Sprintf("http://%s:%d/", realNodeAddress(ctx), nodePort))).To(ContainSubstring(pageV1))

			By("scaling to 3, each endpoint answering")
			testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](3) })
			expectReady(ctx, ws)
			var endpoints []string
			Eventually(ctx, func(g Gomega) {
				endpoints = readyEndpoints(ctx, g, namespace, ws.Name+"-service")
				g.Expect(endpoints).To(HaveLen(3))
			}).Should(Succeed())
			for _, ip := range endpoints {
				Expect(hostGet(fmt.Sprintf("http://%s:8080/", ip))).To(ContainSubstring(pageV1), "endpoint %s", ip)
			}
		})

	// Serial: it kills the leader, which every other spec waits on.
	It("rolls a WebServer back from an image that cannot be pulled, once though the leader dies, then out to a new one, with no failed request meanwhile", Serial, func(ctx SpecContext) {
		ws := webServer(ctx, "web", func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Replicas = ptr.To[int32](2)
			ws.Spec.Rollout.ProgressDeadlineSeconds = ptr.To[int32](20)
		})
		url := fmt.Sprintf("http://%s/", service(ctx, ws).Spec.ClusterIP)
		// A Ready WebServer says nothing of kube-proxy: its new Service
		// answers once the rules are in, and only the rollouts are on trial.
		Eventually(ctx, func(g Gomega) { g.Expect(hostGet(url)).To(ContainSubstring(pageV1)) }).Should(Succeed())
		poller := startPolling(url)
		DeferCleanup(poller.stop)

		By("an image that cannot be pulled, and the leader killed before its deadline")
		missing := strings.Split(images["nginx-v1"], "@")[0] + "-missing"
		changed := time.Now()
		testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = missing })
		killed := leader(ctx).kill()
		testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonRolledBack)
		rolledBack := time.Since(changed).Round(100 * time.Millisecond)
		GinkgoWriter.Printf("Rolled back %s after the image changed (20 s deadline), the leader killed %s after it\n",
			rolledBack, killed.Sub(changed).Round(100*time.Millisecond))
		AddReportEntry("rollback after the image changed", rolledBack.String())
		Expect(ws.Spec.Image).To(Equal(missing), "the spec is the user's")
		Expect(ws.Status.Rollback).To(PointTo(MatchFields(IgnoreExtras, Fields{
			"Image": Equal(missing), "To": Equal(images["nginx-v1"]), "Reason": MatchRegexp("ErrImagePull|ImagePullBackOff"),
		})))
		testenv.ExpectEvent(ctx, k8sClient, ws, "WebServer", seedv1alpha1.ReasonRolledBack, missing)
		Expect(kubectlSeed(ctx, "status", "web", "-n", ws.Namespace)).To(MatchRegexp(
			`(?m)^WebServer\s+web\s+False\s+RolledBack\s+\S+\s+Image ` + regexp.QuoteMeta(missing) + ` did not roll out`))
		Expect(kubectlSeed(ctx, "rollout", "status", "ws/web", "-n", ws.Namespace)).To(MatchRegexp(
			`(?m)^Last rollback:\s+rolled back from ` + regexp.QuoteMeta(missing+" to "+images["nginx-v1"]) + ` \S+: .*(ErrImagePull|ImagePullBackOff)`))
		Eventually(ctx, func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(ctx, key(ws.Name), d)).To(Succeed())
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(images["nginx-v1"]))
			g.Expect(d.Status).To(MatchFields(IgnoreExtras, Fields{
				"Replicas": BeEquivalentTo(2), "UpdatedReplicas": BeEquivalentTo(2), "ReadyReplicas": BeEquivalentTo(2),
			}))
		}).Should(Succeed())
		Consistently(ctx, func(g Gomega) {
			g.Expect(testenv.EventCount(ctx, g, k8sClient, ws, seedv1alpha1.ReasonRolledBack)).To(BeEquivalentTo(1), "rolled back once")
		}, "5s").Should(Succeed())

		By("a new image, rolled out as usual")
		testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = images["nginx-v2"] })
		expectReady(ctx, ws)
		Eventually(ctx, func(g Gomega) {
			g.Expect(poller.tail(20)).To(HaveEach(ContainSubstring(pageV2)), "the last answers are all the new page")
		}).Should(Succeed())
		poller.stop()
		Expect(ws.Status.Rollback).To(BeNil())
		Expect(ws.Status.LastAvailableImage).To(Equal(images["nginx-v2"]))

		requests, failures, pages := poller.result()
		GinkgoWriter.Printf("Rollouts: %d requests while rolling out and back, %d failed\n", requests, len(failures))
		AddReportEntry("rollouts", fmt.Sprintf("%d requests, %d failed", requests, len(failures)))
		Expect(failures).To(BeEmpty(), "requests failed while rolling out and back")
		Expect(pages).To(HaveKey(ContainSubstring(pageV1)))
		Expect(pages).To(HaveKey(ContainSubstring(pageV2)))
	})

	It("puts back a deleted pod and a deleted Deployment of a WebServer, and the page answers again", func(ctx SpecContext) {
		ws := webServer(ctx, "web")
		url := fmt.Sprintf("http://%s/", service(ctx, ws).Spec.ClusterIP)

		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels(kube.SelectorLabels("webserver", ws.Name)))).To(Succeed())
		Expect(pods.Items).To(HaveLen(1))
		Expect(k8sClient.Delete(ctx, &pods.Items[0])).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(hostGet(url)).To(ContainSubstring(pageV1))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(&pods.Items[0]), &corev1.Pod{})).NotTo(Succeed())
		}).Should(Succeed())

		deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: ws.Name, Namespace: namespace}}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(deployment), deployment)).To(Succeed())
		deleted := deployment.UID
		Expect(k8sClient.Delete(ctx, deployment)).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(deployment), deployment)).To(Succeed())
			g.Expect(deployment.UID).NotTo(Equal(deleted))
		}).Should(Succeed())
		expectReady(ctx, ws)
		// Ready pods are in the Service once kube-proxy has their endpoint.
		Eventually(ctx, func(g Gomega) { g.Expect(hostGet(url)).To(ContainSubstring(pageV1)) }).Should(Succeed())
	})

	It("says why the kubelet refuses a WebServer whose image runs as root", func(ctx SpecContext) {
		ws := &seedv1alpha1.WebServer{
			ObjectMeta: metav1.ObjectMeta{Name: "rooted", Namespace: namespace},
			Spec:       seedv1alpha1.WebServerSpec{Image: images["nginx-root"]},
		}
		Expect(k8sClient.Create(ctx, ws)).To(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, "PodsFailing")
		Expect(ws.Status.Conditions).To(ContainElement(HaveField("Message", And(
			ContainSubstring("CreateContainerConfigError"),
			ContainSubstring("container has runAsNonRoot and image will run as root"),
		))))
	})

	It("prints an Echo's message exactly as written: no shell, no expansion", func(ctx SpecContext) {
		const message = "Hello, $(HOME) and $HOME, \"double\" and 'single' quotes; `date`\nand a second line"
		echo := &seedv1alpha1.Echo{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: namespace},
			Spec:       seedv1alpha1.EchoSpec{Message: message, Image: images["busybox"]},
		}
		Expect(k8sClient.Create(ctx, echo)).To(Succeed())
		expectReady(ctx, echo)
		Expect(echo.Status.Phase).To(Equal(seedv1alpha1.EchoSucceeded))
		Expect(jobLogs(ctx, namespace, "hello")).To(Equal(message + "\n"))
	})

	It("prints an Echo with a TTL of 0 once: its Job goes once the result is recorded, and is not run again", func(ctx SpecContext) {
		echo := &seedv1alpha1.Echo{
			ObjectMeta: metav1.ObjectMeta{Name: "brief", Namespace: namespace},
			Spec:       seedv1alpha1.EchoSpec{Message: "once", Image: images["busybox"], TTLSecondsAfterFinished: ptr.To[int32](0)},
		}
		Expect(k8sClient.Create(ctx, echo)).To(Succeed())
		expectReady(ctx, echo)

		By("the TTL controller deleting the Job, once the Echo has recorded how it ended")
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, client.ObjectKeyFromObject(echo), &batchv1.Job{})
		}).Should(MatchError(ContainSubstring("not found")))
		Consistently(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(echo), &batchv1.Job{})).To(MatchError(ContainSubstring("not found")))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(echo), echo)).To(Succeed())
			g.Expect(echo.Status.Phase).To(Equal(seedv1alpha1.EchoSucceeded))
		}).WithTimeout(10*time.Second).Should(Succeed(), "the result stays, and the message is not printed again")
		Expect(testenv.EventCount(ctx, Default, k8sClient, echo, "Created")).To(BeEquivalentTo(1), "one Job made")
	})

	It("prints a ScheduledEcho's message on each of two runs", func(ctx SpecContext) {
		Expect(ticking).NotTo(BeNil(), "the suite starts the ScheduledEcho before its specs")
		expectReady(ctx, ticking)
		// The CronJob controller fires on the minute; the runs since the
		// suite began are kept up to the successful jobs' history limit.
		var succeeded []string
		Eventually(ctx, func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ticking.Namespace))).To(Succeed())
			succeeded = nil
			for _, pod := range pods.Items {
				if pod.Status.Phase == corev1.PodSucceeded {
					succeeded = append(succeeded, pod.Name)
				}
			}
			g.Expect(len(succeeded)).To(BeNumerically(">=", 2))
		}).WithTimeout(200 * time.Second).WithPolling(2 * time.Second).Should(Succeed())
		for _, pod := range succeeded {
			Expect(podLogs(ctx, ticking.Namespace, pod)).To(Equal(tickMessage+"\n"), "pod %s", pod)
		}
	})

	It("starts an ImmortalContainer's container again each time it exits, waiting longer each time, and counts every start", long,
		func(ctx SpecContext) {
			ic := &seedv1alpha1.ImmortalContainer{
				ObjectMeta: metav1.ObjectMeta{Name: "brief", Namespace: namespace},
				Spec: seedv1alpha1.ImmortalContainerSpec{
					Image: images["busybox"], Command: []string{"sh", "-c", "sleep 2"}, RunAsUser: ptr.To[int64](65534),
				},
			}
			Expect(k8sClient.Create(ctx, ic)).To(Succeed())

			// The pods the node really ran, as they come and go.
			seen := map[string]metav1.Time{}
			watchPods := func(g Gomega) {
				pods := &corev1.PodList{}
				g.Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace))).To(Succeed())
				for _, pod := range pods.Items {
					for _, s := range pod.Status.ContainerStatuses {
						if s.State.Running != nil || s.State.Terminated != nil {
							seen[string(pod.UID)] = pod.CreationTimestamp
						}
					}
				}
			}
			Eventually(ctx, func(g Gomega) {
				watchPods(g)
				g.Expect(k8sClient.Get(ctx, key("brief"), ic)).To(Succeed())
				g.Expect(ic.Status.PodsStarted).To(BeNumerically(">=", 4))
			}).WithTimeout(120 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())

			starts := ic.Status.StartTimes[:4]
			gaps := make([]time.Duration, 3)
			for i := range gaps {
				gaps[i] = starts[i+1].Sub(starts[i].Time)
			}
			GinkgoWriter.Printf("ImmortalContainer: waits between starts %v\n", gaps)
			AddReportEntry("immortal back-off", fmt.Sprint(gaps))
			// The first replacement starts as soon as the container has
			// exited; then the wait from one start to the next doubles.
			Expect(gaps[0]).To(BeNumerically("<", 10*time.Second))
			Expect(gaps[1]).To(BeNumerically("~", 10*time.Second, 3*time.Second))
			Expect(gaps[2]).To(BeNumerically("~", 20*time.Second, 3*time.Second))
			counted := make([]int64, 0, len(starts))
			for _, start := range starts {
				counted = append(counted, start.Unix())
			}
			// The last pod counted may not have run yet.
			Eventually(ctx, func(g Gomega) {
				watchPods(g)
				ran := make([]int64, 0, len(seen))
				for _, created := range seen {
					ran = append(ran, created.Unix())
				}
				g.Expect(ran).To(ContainElements(counted), "each start counted is a pod that ran")
			}).WithPolling(250 * time.Millisecond).Should(Succeed())

			By("deleting the pod, as kubectl does")
			Eventually(ctx, func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, key("brief"), ic)).To(Succeed())
				g.Expect(ic.Status.CurrentPod).NotTo(BeEmpty())
			}).WithTimeout(60 * time.Second).Should(Succeed())
			before := ic.Status.PodsStarted
			Expect(k8sClient.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: ic.Status.CurrentPod, Namespace: namespace}})).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, key("brief"), ic)).To(Succeed())
				g.Expect(ic.Status.PodsStarted).To(BeNumerically(">", before))
			}).WithTimeout(120 * time.Second).Should(Succeed())
		})

	DescribeTable("a DemoVolume on the node's own storage",
		func(ctx SpecContext, policy seedv1alpha1.ReclaimPolicy) {
			demoVolume := func() *seedv1alpha1.DemoVolume {
				return &seedv1alpha1.DemoVolume{
					ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace},
					Spec: seedv1alpha1.DemoVolumeSpec{
						Name: "Data", Size: 1, ReclaimPolicy: policy, StorageClassName: ptr.To("local-path"),
					},
				}
			}
			dv := demoVolume()
			Expect(k8sClient.Create(ctx, dv)).To(Succeed())
			// The class binds a claim once a pod uses it, on the pod's node.
			Expect(runOnClaim(ctx, namespace, "writer", "data", "echo kept > /data/file && cat /data/file")).To(Equal("kept\n"))
			expectReady(ctx, dv)
			claim := &corev1.PersistentVolumeClaim{}
			Expect(k8sClient.Get(ctx, key("data"), claim)).To(Succeed())
			volume := claim.Spec.VolumeName

			Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
			Eventually(ctx, func() error { return k8sClient.Get(ctx, key("data"), dv) }).Should(MatchError(ContainSubstring("not found")))

			if policy == seedv1alpha1.ReclaimDelete {
				Eventually(ctx, func(g Gomega) {
					g.Expect(k8sClient.Get(ctx, key("data"), claim)).NotTo(Succeed(), "the claim goes")
					g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: volume}, &corev1.PersistentVolume{})).NotTo(Succeed(), "and its volume")
				}).Should(Succeed())
				return
			}
			By("a new DemoVolume of the same name adopting the claim, and a new pod reading what the first wrote")
			Expect(k8sClient.Get(ctx, key("data"), claim)).To(Succeed())
			Expect(claim.Spec.VolumeName).To(Equal(volume))
			dv = demoVolume()
			Expect(k8sClient.Create(ctx, dv)).To(Succeed())
			expectReady(ctx, dv)
			Expect(runOnClaim(ctx, namespace, "reader", "data", "cat /data/file")).To(Equal("kept\n"))
			Expect(k8sClient.Get(ctx, key("data"), claim)).To(Succeed())
			Expect(claim.Spec.VolumeName).To(Equal(volume), "the same volume")
		},
		Entry("keeps its data with Retain, for a DemoVolume of the same name to adopt", seedv1alpha1.ReclaimRetain),
		Entry("takes the claim and its volume with it with Delete", seedv1alpha1.ReclaimDelete),
	)
})

// tickMessage is what the suite's ScheduledEcho prints.
const tickMessage = "Tick from the real node"

// tickName is the name of the ScheduledEcho the suite starts.
const tickName = "tick"

// startTicking creates, in a namespace of its own on the real node, a
// ScheduledEcho that runs every minute. Its runs come on the minute, so the
// suite starts it before its specs, and the spec that reads two of them
// rarely waits.
func startTicking(ctx context.Context) *seedv1alpha1.ScheduledEcho {
	namespace := testenv.RestrictedNamespace(ctx, k8sClient, "tick", cluster.RealNodeAnnotations())
	scheduled := &seedv1alpha1.ScheduledEcho{
		ObjectMeta: metav1.ObjectMeta{Name: tickName, Namespace: namespace},
		Spec:       seedv1alpha1.ScheduledEchoSpec{Message: tickMessage, Schedule: "* * * * *", Image: images["busybox"]},
	}
	Expect(k8sClient.Create(ctx, scheduled)).To(Succeed())
	return scheduled
}

// readyWebServer creates a WebServer of the first test image, changed by
// mutate, and waits until it is Ready.
func readyWebServer(ctx context.Context, namespace, name string, mutate ...func(*seedv1alpha1.WebServer)) *seedv1alpha1.WebServer {
	ws := &seedv1alpha1.WebServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       seedv1alpha1.WebServerSpec{Image: images["nginx-v1"]},
	}
	for _, m := range mutate {
		m(ws)
	}
	Expect(k8sClient.Create(ctx, ws)).To(Succeed())
	expectReady(ctx, ws)
	return ws
}

// realNamespace creates a namespace that enforces the restricted Pod
// Security Standard and whose pods the scheduler puts on the real node.
func realNamespace(ctx context.Context, prefix string) string {
	return createNamespace(ctx, prefix, cluster.RealNodeAnnotations())
}

// realNodeAddress is the real node's InternalIP, where its node ports
// answer.
func realNodeAddress(ctx context.Context) string {
	nodes := &corev1.NodeList{}
	Expect(k8sClient.List(ctx, nodes, client.HasLabels{cluster.RealNodeLabel})).To(Succeed())
	Expect(nodes.Items).To(HaveLen(1))
	for _, a := range nodes.Items[0].Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	Fail("the real node has no InternalIP")
	return ""
}

// readyEndpoints are the addresses of a Service's ready endpoints.
func readyEndpoints(ctx context.Context, g Gomega, namespace, service string) []string {
	slices := &discoveryv1.EndpointSliceList{}
	g.Expect(k8sClient.List(ctx, slices, client.InNamespace(namespace),
		client.MatchingLabels{discoveryv1.LabelServiceName: service})).To(Succeed())
	var addresses []string
	for _, slice := range slices.Items {
		for _, e := range slice.Endpoints {
			if ptr.Deref(e.Conditions.Ready, false) {
				addresses = append(addresses, e.Addresses...)
			}
		}
	}
	return addresses
}

// clientPod is a pod of the test busybox image (with fetch) that runs a
// shell command under the restricted profile, as nobody.
func clientPod(namespace, name, command string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: "client", Image: images["busybox"], Command: []string{"sh", "-c", command},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
}

// claimPod is a clientPod that mounts the claim at /data.
func claimPod(namespace, name, claim, command string) *corev1.Pod {
	pod := clientPod(namespace, name, command)
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
	}}}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	return pod
}

// runToCompletion runs a pod until it succeeds and returns its log.
func runToCompletion(ctx context.Context, pod *corev1.Pod) string {
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		if pod.Status.Phase == corev1.PodFailed {
			StopTrying(fmt.Sprintf("pod %s failed: %s", pod.Name, podLogs(ctx, pod.Namespace, pod.Name))).Now()
		}
		g.Expect(pod.Status.Phase).To(Equal(corev1.PodSucceeded))
	}).Should(Succeed())
	return podLogs(ctx, pod.Namespace, pod.Name)
}

// fetchFromPod gets a URL from a pod on the real node, and returns the body.
func fetchFromPod(ctx context.Context, namespace, url string) string {
	return runToCompletion(ctx, clientPod(namespace, "fetch-"+rand.String(5), "fetch "+url))
}

// runOnClaim runs a shell command in a pod that mounts the claim at /data.
func runOnClaim(ctx context.Context, namespace, name, claim, command string) string {
	pod := claimPod(namespace, name, claim, command)
	log := runToCompletion(ctx, pod)
	Expect(k8sClient.Delete(ctx, pod)).To(Succeed())
	Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod) }).Should(MatchError(ContainSubstring("not found")))
	return log
}

// podLogs is a pod's log, as kubectl logs shows it.
func podLogs(ctx context.Context, namespace, name string) string {
	data, err := clientset.CoreV1().Pods(namespace).GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred(), "logs of pod %s/%s", namespace, name)
	return string(data)
}

// jobLogs is the log of the Job's one pod.
func jobLogs(ctx context.Context, namespace, job string) string {
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"job-name": job})).To(Succeed())
	Expect(pods.Items).To(HaveLen(1))
	return podLogs(ctx, namespace, pods.Items[0].Name)
}

// hostGet gets a URL from this machine, and returns the body of a 200.
func hostGet(url string) (string, error) {
	httpClient := http.Client{Timeout: 2 * time.Second}
	resp, err := httpClient.Get(url)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", url, resp.Status)
	}
	return string(body), nil
}

// poller gets a URL from this machine, again and again, and counts what it
// gets, as a client of a web server would during a rollout.
type poller struct {
	url      string
	done     chan struct{}
	stopped  sync.WaitGroup
	mu       sync.Mutex
	requests int
	failures []string
	answers  []string
	once     sync.Once
}

// pollPage waits until the page of a WebServer's Service answers this
// machine, then gets it every interval until the spec ends.
func pollPage(ctx SpecContext, ws client.ObjectKey, interval time.Duration) *poller {
	service := &corev1.Service{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ws.Namespace, Name: ws.Name + "-service"}, service)).To(Succeed())
	url := fmt.Sprintf("http://%s/", service.Spec.ClusterIP)
	Eventually(ctx, func(g Gomega) { g.Expect(hostGet(url)).To(ContainSubstring(pageV1)) }).Should(Succeed())
	p := startPollingEvery(url, interval)
	DeferCleanup(p.stop)
	return p
}

func startPolling(url string) *poller {
	return startPollingEvery(url, 20*time.Millisecond)
}

// startPollingEvery polls at a rate of its own, for a spec where the
// requests themselves would count: each costs the server CPU.
func startPollingEvery(url string, interval time.Duration) *poller {
	p := &poller{url: url, done: make(chan struct{})}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		for {
			select {
			case <-p.done:
				return
			case <-time.After(interval):
			}
			body, err := hostGet(p.url)
			p.mu.Lock()
			p.requests++
			if err != nil {
				p.failures = append(p.failures, err.Error())
			} else {
				p.answers = append(p.answers, strings.TrimSpace(body))
			}
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *poller) stop() {
	p.once.Do(func() { close(p.done) })
	p.stopped.Wait()
}

// tail is the last n answers.
func (p *poller) tail(n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.answers) < n {
		return nil
	}
	return append([]string(nil), p.answers[len(p.answers)-n:]...)
}

// result is how many requests were made, the failures, and how often each
// answer came.
func (p *poller) result() (int, []string, map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pages := map[string]int{}
	for _, a := range p.answers {
		pages[a]++
	}
	return p.requests, p.failures, pages
}
