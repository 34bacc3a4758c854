package webserver

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("WebServer controller", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "webserver")
	})

	// create makes a WebServer with only a name, as a user would, changed by
	// mutate, and returns it as stored (defaults applied).
	create := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.WebServer)) *seedv1alpha1.WebServer {
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		for _, m := range mutate {
			m(ws)
		}
		Expect(k8sClient.Create(ctx, ws)).To(Succeed())
		return ws
	}
	deploymentOf := func(ctx SpecContext, name string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, d)
		}).Should(Succeed())
		return d
	}
	serviceOf := func(ctx SpecContext, name string) *corev1.Service {
		s := &corev1.Service{}
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name + "-service"}, s)
		}).Should(Succeed())
		return s
	}
	update := func(ctx SpecContext, name string, mutate func(*seedv1alpha1.WebServer)) {
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.Update(ctx, k8sClient, ws, mutate)
	}
	webServer := func(ctx SpecContext, g Gomega, name string) *seedv1alpha1.WebServer {
		ws := &seedv1alpha1.WebServer{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, ws)).To(Succeed())
		return ws
	}
	// reportPods plays the Deployment controller, which envtest does not
	// run: every pod of the current template is up, and ready or not yet.
	reportPods := func(ctx SpecContext, name string, ready bool) {
		Eventually(ctx, func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, d)).To(Succeed())
			n := *d.Spec.Replicas
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n}
			available := appsv1.DeploymentCondition{
				Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
				Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.",
				LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}
			if ready {
				d.Status.ReadyReplicas, d.Status.AvailableReplicas = n, n
			} else {
				d.Status.UnavailableReplicas = n
				available.Status, available.Reason, available.Message = corev1.ConditionFalse,
					"MinimumReplicasUnavailable", "Deployment does not have minimum availability."
			}
			d.Status.Conditions = []appsv1.DeploymentCondition{available}
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}).Should(Succeed())
	}
	rollOut := func(ctx SpecContext, name string) { reportPods(ctx, name, true) }
	// reportStarting is the Deployment controller's first report on a new
	// Deployment: every pod made, none ready yet.
	reportStarting := func(ctx SpecContext, name string) { reportPods(ctx, name, false) }
	expectReady := func(ctx SpecContext, name string, status metav1.ConditionStatus, reason string) {
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, status, reason)
		Expect(ws.Status.ObservedGeneration).To(Equal(ws.Generation))
	}
	// createReady makes a WebServer with only a name and waits until it is
	// Ready; it returns its Deployment and Service.
	createReady := func(ctx SpecContext, name string) (*appsv1.Deployment, *corev1.Service) {
		create(ctx, name)
		d, s := deploymentOf(ctx, name), serviceOf(ctx, name)
		rollOut(ctx, name)
		expectReady(ctx, name, metav1.ConditionTrue, reasonReady)
		return d, s
	}
	expectEvent := func(ctx SpecContext, name, reason, kind string) {
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectEvent(ctx, k8sClient, ws, "WebServer", reason, kind)
	}

	It("creates a Deployment and a Service owned by the WebServer, in its namespace", func(ctx SpecContext) {
		ws := create(ctx, "web")

		d := deploymentOf(ctx, "web")
		Expect(d.OwnerReferences).To(ConsistOf(And(
			HaveField("UID", ws.UID), HaveField("Kind", "WebServer"),
			HaveField("Controller", HaveValue(BeTrue())), HaveField("BlockOwnerDeletion", HaveValue(BeTrue())),
		)))
		Expect(d.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
		Expect(*d.Spec.Replicas).To(BeEquivalentTo(1), "the API server defaults replicas to 1")
		Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", seedv1alpha1.DefaultWebServerImage)))
		Expect(d.Spec.Template.Spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))

		s := serviceOf(ctx, "web")
		Expect(s.OwnerReferences).To(ConsistOf(HaveField("UID", ws.UID)))
		Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
		Expect(s.Spec.Ports).To(ConsistOf(And(HaveField("Port", BeEquivalentTo(80)), HaveField("TargetPort.StrVal", "http"))))
		Expect(s.Spec.Selector).To(Equal(d.Spec.Selector.MatchLabels))

		expectEvent(ctx, "web", "Created", "Created Deployment web, Service web-service")
		Consistently(ctx, func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, ws, "Created") }).
			WithTimeout(2*time.Second).Should(BeEquivalentTo(1), "one event for the Deployment and the Service")
		expectReady(ctx, "web", metav1.ConditionFalse, reasonAwaitingDeployment)
	})

	It("reports Ready once the Deployment's pods are, and follows its status", func(ctx SpecContext) {
		create(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](3) })
		deploymentOf(ctx, "web")
		rollOut(ctx, "web")

		expectReady(ctx, "web", metav1.ConditionTrue, reasonReady)
		Eventually(ctx, func(g Gomega) {
			ws := webServer(ctx, g, "web")
			g.Expect(ws.Status.ReadyReplicas).To(BeEquivalentTo(3))
			g.Expect(ws.Status.Replicas).To(BeEquivalentTo(3))
			g.Expect(ws.Status.Selector).To(Equal("app.kubernetes.io/instance=web,app.kubernetes.io/name=webserver"))
			g.Expect(meta.IsStatusConditionTrue(ws.Status.Conditions, seedv1alpha1.WebServerAvailable)).To(BeTrue())
		}).Should(Succeed())

		By("a pod failing its readiness probe")
		d := deploymentOf(ctx, "web")
		d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 2
		Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		expectReady(ctx, "web", metav1.ConditionFalse, reasonPodsNotReady)
	})

	It("writes a new WebServer's first status once, Ready, when its pods are ready within the grace", func(ctx SpecContext) {
		watcher, err := client.NewWithWatch(env.Config, client.Options{Scheme: k8sClient.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		events, err := watcher.Watch(ctx, &seedv1alpha1.WebServerList{}, client.InNamespace(namespace))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(events.Stop)

		create(ctx, "web")
		deploymentOf(ctx, "web")
		reportStarting(ctx, "web")
		Consistently(ctx, func(g Gomega) {
			g.Expect(webServer(ctx, g, "web").Status.Conditions).To(BeEmpty())
		}, "2s").Should(Succeed(), "no status while the pods start")
		rollOut(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionTrue, reasonReady)

		var written []string
		for e := range events.ResultChan() {
			ws, ok := e.Object.(*seedv1alpha1.WebServer)
			Expect(ok).To(BeTrue(), "a watch event of %T", e.Object)
			if ready := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady); ready != nil {
				written = append(written, ready.Reason)
			}
			if len(written) > 0 && written[len(written)-1] == reasonReady {
				break
			}
		}
		Expect(written).To(Equal([]string{reasonReady}), "the Ready reasons the WebServer's status had, in order")
	})

	It("says what the Deployment controller reported once the grace is over", func(ctx SpecContext) {
		create(ctx, "web")
		d := deploymentOf(ctx, "web")
		reportStarting(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionFalse, reasonPodsNotReady)
		expectFirstStatusAfterGrace(webServer(ctx, Default, "web"), d)
	})

	It("says the Deployment controller is awaited once the first report is late", func(ctx SpecContext) {
		create(ctx, "web")
		d := deploymentOf(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionFalse, reasonAwaitingDeployment)
		expectFirstStatusAfterGrace(webServer(ctx, Default, "web"), d)
	})

	It("scales the Deployment when spec.replicas changes", func(ctx SpecContext) {
		create(ctx, "web")
		deploymentOf(ctx, "web")

		update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](4) })
		Eventually(ctx, func(g Gomega) {
			g.Expect(*deploymentOf(ctx, "web").Spec.Replicas).To(BeEquivalentTo(4))
		}).Should(Succeed())
		expectEvent(ctx, "web", "Updated", "Deployment")
	})

	It("upgrades the image with a rolling update and an unchanged selector", func(ctx SpecContext) {
		const newImage = "docker.io/nginxinc/nginx-unprivileged:1.29.4-alpine"
		create(ctx, "web")
		before := deploymentOf(ctx, "web")

		update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = newImage })
		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", newImage)))
			g.Expect(d.Spec.Selector).To(Equal(before.Spec.Selector))
			g.Expect(d.Spec.Strategy.Type).To(Equal(appsv1.RollingUpdateDeploymentStrategyType))
		}).Should(Succeed())
	})

	It("puts the Deployment back when someone edits it", func(ctx SpecContext) {
		createReady(ctx, "web")

		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			d.Spec.Replicas = ptr.To[int32](7)
			d.Spec.Template.Spec.Containers[0].Image = "docker.io/library/httpd:2.4"
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}).Should(Succeed())

		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(*d.Spec.Replicas).To(BeEquivalentTo(1))
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(seedv1alpha1.DefaultWebServerImage))
		}).Should(Succeed())
		expectEvent(ctx, "web", "Repaired", "Deployment")
	})

	It("puts the Service back when someone edits it, and still moves its port after", func(ctx SpecContext) {
		create(ctx, "web")
		serviceOf(ctx, "web")

		Eventually(ctx, func(g Gomega) {
			s := serviceOf(ctx, "web")
			s.Spec.Ports[0].Port = 9999
			s.Spec.Selector = map[string]string{"app": "something-else"}
			g.Expect(k8sClient.Update(ctx, s)).To(Succeed())
		}).Should(Succeed())

		Eventually(ctx, func(g Gomega) {
			s := serviceOf(ctx, "web")
			g.Expect(s.Spec.Ports).To(ConsistOf(HaveField("Port", BeEquivalentTo(80))))
			g.Expect(s.Spec.Selector).To(Equal(map[string]string{
				"app.kubernetes.io/name": "webserver", "app.kubernetes.io/instance": "web",
			}))
		}).Should(Succeed())

		// The repair's patch owns the port it put back: an apply alone would
		// keep it beside the new one, and the API server refuses two ports
		// of the same name.
		update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Port = 8081 })
		Eventually(ctx, func(g Gomega) {
			g.Expect(serviceOf(ctx, "web").Spec.Ports).To(ConsistOf(HaveField("Port", BeEquivalentTo(8081))))
		}).Should(Succeed())
	})

	It("removes what other tools added to the Deployment and the Service", func(ctx SpecContext) {
		d, s := createReady(ctx, "web")
		repairs := func(kind, manager string) float64 {
			return testenv.Counted("seed_drift_repairs_total", map[string]string{"kind": kind, "field_manager": manager})
		}
		deploymentRepairs, serviceRepairs := repairs("Deployment", "kubectl-set"), repairs("Service", "kubectl-patch")

		// kubectl set env deployment/web FOREIGN=1
		testenv.EditAs(ctx, k8sClient, d, "kubectl-set",
			`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"FOREIGN","value":"1"}]}]}}}}`)
		// kubectl patch service/web-service: a second port, and a label in
		// the selector.
		testenv.EditAs(ctx, k8sClient, s, "kubectl-patch",
			`{"spec":{"ports":[{"name":"metrics","port":9113,"targetPort":9113}],"selector":{"tier":"frontend"}}}`)

		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Env", BeEmpty())))
			s := serviceOf(ctx, "web")
			g.Expect(s.Spec.Ports).To(ConsistOf(HaveField("Port", BeEquivalentTo(80))))
			g.Expect(s.Spec.Selector).To(Equal(map[string]string{
				"app.kubernetes.io/name": "webserver", "app.kubernetes.io/instance": "web",
			}))
		}).Should(Succeed())
		Expect(serviceOf(ctx, "web").Spec.ClusterIP).To(Equal(s.Spec.ClusterIP), "the allocated cluster IP stays")
		expectEvent(ctx, "web", "Repaired", "Deployment")
		expectEvent(ctx, "web", "Repaired", "Service")
		Expect(repairs("Deployment", "kubectl-set")).To(BeNumerically(">", deploymentRepairs), "repairs counted, by whose change")
		Expect(repairs("Service", "kubectl-patch")).To(BeNumerically(">", serviceRepairs), "repairs counted, by whose change")
		rollOut(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionTrue, reasonReady)
	})

	It("takes back kubectl scale and set image on the Deployment, and still scales and upgrades after", func(ctx SpecContext) {
		const upgrade = "docker.io/nginxinc/nginx-unprivileged:1.29.4-alpine"
		create(ctx, "web")
		d := deploymentOf(ctx, "web")

		// kubectl scale deployment/web --replicas=5
		scale := &autoscalingv1.Scale{}
		Expect(k8sClient.SubResource("scale").Get(ctx, d, scale)).To(Succeed())
		scale.ResourceVersion = ""
		scale.Spec.Replicas = 5
		Expect(k8sClient.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(scale), client.FieldOwner("kubectl"))).To(Succeed())
		// kubectl set image deployment/web nginx=httpd
		testenv.EditAs(ctx, k8sClient, d, "kubectl-set",
			`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"docker.io/library/httpd:2.4"}]}}}}`)

		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(*d.Spec.Replicas).To(BeEquivalentTo(1))
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", seedv1alpha1.DefaultWebServerImage)))
		}).Should(Succeed())

		update(ctx, "web", func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Replicas = ptr.To[int32](3)
			ws.Spec.Image = upgrade
		})
		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(*d.Spec.Replicas).To(BeEquivalentTo(3))
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", upgrade)))
		}).Should(Succeed())
	})

	It("still reports the Deployment as it is while the operator cannot change it", func(ctx SpecContext) {
		d, _ := createReady(ctx, "web")

		By("an admission policy that refuses the operator's writes to the namespace's Deployments")
		env.DenyOperatorWrites(ctx, d, "frozen for maintenance")
		testenv.EditAs(ctx, k8sClient, d, "kubectl-set",
			`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"FOREIGN","value":"1"}]}]}}}}`)

		Eventually(ctx, func(g Gomega) {
			ws := webServer(ctx, g, "web")
			ready := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready).To(And(
				HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", seedv1alpha1.ReasonReconcileFailed),
				HaveField("Message", And(
					ContainSubstring("repairing Deployment %s/web: removing the spec fields kubectl-set added", namespace),
					ContainSubstring("frozen for maintenance"))),
			))
			g.Expect(ws.Status.ReadyReplicas).To(BeEquivalentTo(1), "the Deployment's pods are still ready")
			g.Expect(meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.WebServerAvailable)).To(And(
				HaveField("Status", metav1.ConditionTrue), HaveField("Reason", "MinimumReplicasAvailable")))
		}).Should(Succeed())
		expectEvent(ctx, "web", "ApplyFailed", "frozen for maintenance")
	})

	It("reports a spec the Deployment API refuses once, without retrying it, until the spec changes", func(ctx SpecContext) {
		// The CRD admits any extended resource; the Deployment API wants its
		// request equal to its limit.
		dongle := corev1.ResourceName("example.com/dongle")
		errorsBefore, err := testenv.ReconcileErrors("webserver")
		Expect(err).NotTo(HaveOccurred())
		create(ctx, "web", func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{dongle: resource.MustParse("2")},
				Limits:   corev1.ResourceList{dongle: resource.MustParse("1")},
			}
		})

		Eventually(ctx, func(g Gomega) {
			ready := meta.FindStatusCondition(webServer(ctx, g, "web").Status.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready).To(And(
				HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", seedv1alpha1.ReasonReconcileFailed),
				HaveField("Message", ContainSubstring(`Deployment.apps "web" is invalid`)),
			))
		}).Should(Succeed())
		expectEvent(ctx, "web", "ApplyFailed", "must be equal to example.com/dongle limit")
		// A failure returned to the workqueue would come back within
		// milliseconds, then ever more slowly: none is.
		Consistently(ctx, func() (float64, error) {
			return testenv.ReconcileErrors("webserver")
		}, 3*time.Second).Should(Equal(errorsBefore))

		update(ctx, "web", func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Resources.Requests[dongle] = resource.MustParse("1")
		})
		deploymentOf(ctx, "web")
		rollOut(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionTrue, reasonReady)
	})

	It("says why its pods cannot run, as the kubelet reports it", func(ctx SpecContext) {
		d, _ := createReady(ctx, "web")

		// Plays the ReplicaSet controller and the kubelet, which envtest
		// does not run: a pod of the Deployment that cannot start.
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web-abc12", Namespace: namespace, Labels: d.Spec.Template.Labels},
			Spec:       d.Spec.Template.Spec,
		}
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: containerName, Image: seedv1alpha1.DefaultWebServerImage,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "CreateContainerConfigError", Message: "container has runAsNonRoot and image will run as root",
			}},
		}}
		Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			d.Status.ReadyReplicas, d.Status.AvailableReplicas = 0, 0
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}).Should(Succeed())

		expectReady(ctx, "web", metav1.ConditionFalse, reasonPodsFailing)
		ws := webServer(ctx, Default, "web")
		Expect(meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady).Message).To(Equal(
			"0 of 1 pods are ready; pod web-abc12 cannot run container nginx: CreateContainerConfigError: " +
				"container has runAsNonRoot and image will run as root"))
	})

	It("rolls a new image whose pods do not become ready back to the last available one, once, and rolls the next image out", func(ctx SpecContext) {
		const badImage, nextImage = "registry.example.com/nginx:missing", "docker.io/nginxinc/nginx-unprivileged:1.29.4-alpine"
		createReady(ctx, "web")
		Eventually(ctx, func(g Gomega) {
			g.Expect(webServer(ctx, g, "web").Status.LastAvailableImage).To(Equal(seedv1alpha1.DefaultWebServerImage))
		}).Should(Succeed())

		update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = badImage })
		var d *appsv1.Deployment
		Eventually(ctx, func(g Gomega) {
			d = deploymentOf(ctx, "web")
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", badImage)))
		}).Should(Succeed())
		Expect(*d.Spec.ProgressDeadlineSeconds).To(BeEquivalentTo(seedv1alpha1.DefaultProgressDeadlineSeconds))

		// Plays the ReplicaSet controller, the kubelet and the Deployment
		// controller: a new pod that cannot pull its image, and the rollout
		// past its deadline.
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web-new12", Namespace: namespace, Labels: d.Spec.Template.Labels},
			Spec:       d.Spec.Template.Spec,
		}
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: containerName, Image: badImage,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + badImage + `"`,
			}},
		}}
		Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			d.Status.ObservedGeneration = d.Generation
			d.Status.UpdatedReplicas = 1
			d.Status.Replicas = 2
			d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: seedv1alpha1.ReasonProgressDeadlineExceeded,
				Message: `ReplicaSet "web-new" has timed out progressing.`, LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			})
			g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}).Should(Succeed())

		By("the Deployment back on the last available image, the spec as the user left it")
		Eventually(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", seedv1alpha1.DefaultWebServerImage)))
		}).Should(Succeed())
		expectReady(ctx, "web", metav1.ConditionFalse, seedv1alpha1.ReasonRolledBack)
		ws := webServer(ctx, Default, "web")
		Expect(ws.Spec.Image).To(Equal(badImage))
		Expect(ws.Status.Rollback).To(PointTo(MatchFields(IgnoreExtras, Fields{
			"Image": Equal(badImage), "To": Equal(seedv1alpha1.DefaultWebServerImage),
			"Reason": Equal(`pod web-new12 cannot run container nginx: ImagePullBackOff: Back-off pulling image "` + badImage + `"`),
		})))
		Expect(meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady).Message).To(HavePrefix(
			"Image " + badImage + " did not roll out within 120s, so the pods went back to " + seedv1alpha1.DefaultWebServerImage))
		expectEvent(ctx, "web", seedv1alpha1.ReasonRolledBack, "Image "+badImage+" did not roll out within 120s")

		By("not trying the failed image again, and rolling back once")
		Expect(k8sClient.Delete(ctx, pod)).To(Succeed())
		rollOut(ctx, "web")
		Consistently(ctx, func(g Gomega) {
			d := deploymentOf(ctx, "web")
			g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", seedv1alpha1.DefaultWebServerImage)))
			g.Expect(webServer(ctx, g, "web").Status.Rollback).NotTo(BeNil())
		}, "2s").Should(Succeed())
		Expect(testenv.EventCount(ctx, Default, k8sClient, ws, seedv1alpha1.ReasonRolledBack)).To(BeEquivalentTo(1))
		Expect(testenv.EventCount(ctx, Default, k8sClient, ws, apply.ReasonRepaired)).To(BeZero(), "a rollback is no drift put back")

		By("a rollback decided again from a copy of the WebServer from before it: not recorded, not said")
		stale := ws.DeepCopy()
		stale.Status.Rollback = nil
		recorded, err := reconciler.rollBack(ctx, stale, stale.DeepCopy(), ws.Status.Rollback)
		Expect(err).NotTo(HaveOccurred())
		Expect(recorded).To(BeFalse())
		Consistently(ctx, func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, ws, seedv1alpha1.ReasonRolledBack) }).
			WithTimeout(2 * time.Second).Should(BeEquivalentTo(1))

		By("rolling the next image out as usual")
		update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = nextImage })
		Eventually(ctx, func(g Gomega) {
			g.Expect(deploymentOf(ctx, "web").Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", nextImage)))
		}).Should(Succeed())
		rollOut(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionTrue, reasonReady)
		ws = webServer(ctx, Default, "web")
		Expect(ws.Status.Rollback).To(BeNil())
		Expect(ws.Status.LastAvailableImage).To(Equal(nextImage))
	})

	It("recreates the Deployment and the Service when they are deleted", func(ctx SpecContext) {
		d, s := createReady(ctx, "web")

		Expect(k8sClient.Delete(ctx, d)).To(Succeed())
		Expect(k8sClient.Delete(ctx, s)).To(Succeed())

		Eventually(ctx, func(g Gomega) {
			g.Expect(deploymentOf(ctx, "web").UID).NotTo(Equal(d.UID))
			g.Expect(serviceOf(ctx, "web").UID).NotTo(Equal(s.UID))
		}).Should(Succeed())
		expectEvent(ctx, "web", "Recreated", "Deployment")
		expectEvent(ctx, "web", "Recreated", "Service")
	})

	It("makes nothing and writes nothing once its namespace is being deleted", func(ctx SpecContext) {
		d, s := createReady(ctx, "web")
		_, other := createReady(ctx, "other")
		testenv.NamespaceTerminating{
			Owner:  &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}},
			Kind:   "Service",
			Remove: func() { Expect(k8sClient.Delete(ctx, s)).To(Succeed()) },
			More: func() {
				Expect(k8sClient.Delete(ctx, d)).To(Succeed())
				Expect(k8sClient.Delete(ctx, other)).To(Succeed())
			},
		}.Expect(ctx, k8sClient)
	})

	It("changes the Service type and pins the node port", func(ctx SpecContext) {
		create(ctx, "web")
		serviceOf(ctx, "web")

		update(ctx, "web", func(ws *seedv1alpha1.WebServer) {
			ws.Spec.ServiceType = corev1.ServiceTypeNodePort
			ws.Spec.NodePort = ptr.To[int32](30080)
		})
		Eventually(ctx, func(g Gomega) {
			s := serviceOf(ctx, "web")
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
			g.Expect(s.Spec.Ports).To(ConsistOf(HaveField("NodePort", BeEquivalentTo(30080))))
		}).Should(Succeed())

		By("going back to ClusterIP, which has no node port")
		update(ctx, "web", func(ws *seedv1alpha1.WebServer) {
			ws.Spec.ServiceType = corev1.ServiceTypeClusterIP
			ws.Spec.NodePort = nil
		})
		Eventually(ctx, func(g Gomega) {
			s := serviceOf(ctx, "web")
			g.Expect(s.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
			g.Expect(s.Spec.Ports).To(ConsistOf(HaveField("NodePort", BeZero())))
		}).Should(Succeed())
	})

	It("serves the scale subresource, as kubectl scale and HorizontalPodAutoscalers use it", func(ctx SpecContext) {
		ws := create(ctx, "web")
		deploymentOf(ctx, "web")
		rollOut(ctx, "web")
		expectReady(ctx, "web", metav1.ConditionTrue, reasonReady)

		scale := &autoscalingv1.Scale{}
		Expect(k8sClient.SubResource("scale").Get(ctx, ws, scale)).To(Succeed())
		Expect(scale.Spec.Replicas).To(BeEquivalentTo(1))
		Expect(scale.Status.Replicas).To(BeEquivalentTo(1))
		Expect(scale.Status.Selector).To(Equal("app.kubernetes.io/instance=web,app.kubernetes.io/name=webserver"))

		// Without a resourceVersion, as kubectl scale sends it: the operator's
		// own status writes must not turn the update into a conflict.
		scale.ResourceVersion = ""
		scale.Spec.Replicas = 3
		Expect(k8sClient.SubResource("scale").Update(ctx, ws, client.WithSubResourceBody(scale))).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(*deploymentOf(ctx, "web").Spec.Replicas).To(BeEquivalentTo(3))
		}).Should(Succeed())

		By("refusing a scale beyond the spec's bounds")
		Expect(k8sClient.SubResource("scale").Get(ctx, ws, scale)).To(Succeed())
		scale.ResourceVersion = ""
		scale.Spec.Replicas = 101
		err := k8sClient.SubResource("scale").Update(ctx, ws, client.WithSubResourceBody(scale))
		Expect(err).To(MatchError(ContainSubstring("spec.replicas: Invalid value: 101")))
	})

	It("writes nothing when a reconcile finds nothing changed", func(ctx SpecContext) {
		createReady(ctx, "web")

		key := types.NamespacedName{Namespace: namespace, Name: "web"}
		versions := func(g Gomega) []string {
			ws, d, s := &seedv1alpha1.WebServer{}, &appsv1.Deployment{}, &corev1.Service{}
			g.Expect(k8sClient.Get(ctx, key, ws)).To(Succeed())
			g.Expect(k8sClient.Get(ctx, key, d)).To(Succeed())
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "web-service"}, s)).To(Succeed())
			return []string{ws.ResourceVersion, d.ResourceVersion, s.ResourceVersion}
		}
		// The manager's cache must have caught up with the status written
		// above before a reconcile can find nothing to do.
		var before []string
		Eventually(ctx, func(g Gomega) {
			before = versions(g)
			cached := &seedv1alpha1.WebServer{}
			g.Expect(reconciler.Get(ctx, key, cached)).To(Succeed())
			g.Expect(cached.ResourceVersion).To(Equal(before[0]))
		}).Should(Succeed())

		ws := webServer(ctx, Default, "web")
		Expect(apply.UpToDate(desiredDeployment(ws), deploymentOf(ctx, "web"))).To(BeTrue(), "the Deployment is as applied: no apply is sent")
		Expect(apply.UpToDate(desiredService(ws), serviceOf(ctx, "web"))).To(BeTrue(), "the Service is as applied: no apply is sent")
		cached := &appsv1.Deployment{}
		testenv.ExpectCachedUpToDate(ctx, reconciler, desiredDeployment(ws), cached)
		Expect(cached.Spec).To(BeZero(), "the cache keeps the digest of the Deployment's spec, not the spec")
		testenv.ExpectCachedUpToDate(ctx, reconciler, desiredService(ws), &corev1.Service{})

		for range 3 {
			Expect(reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: key})).To(Equal(ctrl.Result{}))
		}
		Expect(versions(Default)).To(Equal(before))
	})

	It("refuses an invalid update and leaves the running WebServer as it was", func(ctx SpecContext) {
		create(ctx, "web")
		deploymentOf(ctx, "web")

		Eventually(ctx, func(g Gomega) {
			ws := webServer(ctx, g, "web")
			ws.Spec.ServiceType = "Headless"
			g.Expect(k8sClient.Update(ctx, ws)).To(MatchError(ContainSubstring(`spec.serviceType: Unsupported value: "Headless"`)))
		}).Should(Succeed())
		Expect(serviceOf(ctx, "web").Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
	})

	It("accepts the longest name it allows", func(ctx SpecContext) {
		name := strings.Repeat("w", 55)
		create(ctx, name)
		Expect(serviceOf(ctx, name).Name).To(Equal(fmt.Sprintf("%s-service", name)))
	})

	Context("with autoscaling", func() {
		autoscalerOf := func(ctx SpecContext, g Gomega, name string) *autoscalingv2.HorizontalPodAutoscaler {
			a := &autoscalingv2.HorizontalPodAutoscaler{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, a)).To(Succeed())
			return a
		}
		autoscaled := func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
			ws.Spec.Autoscaling = &seedv1alpha1.WebServerAutoscaling{MaxReplicas: 4, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
		}

		It("scales through an autoscaler it owns, keeps it, reports it, and removes it with spec.autoscaling", func(ctx SpecContext) {
			ws := create(ctx, "web", autoscaled)

			var made *autoscalingv2.HorizontalPodAutoscaler
			Eventually(ctx, func(g Gomega) {
				made = autoscalerOf(ctx, g, "web")
			}).Should(Succeed())
			Expect(made.OwnerReferences).To(ConsistOf(And(HaveField("UID", ws.UID), HaveField("Controller", HaveValue(BeTrue())))))
			Expect(made.Spec.ScaleTargetRef).To(Equal(autoscalingv2.CrossVersionObjectReference{
				APIVersion: "seed.example.com/v1alpha1", Kind: "WebServer", Name: "web",
			}))
			Expect(made.Spec.MinReplicas).To(HaveValue(BeEquivalentTo(1)), "the API server defaults minReplicas")
			Expect(made.Spec.MaxReplicas).To(BeEquivalentTo(4))
			Expect(made.Spec.Metrics).To(ConsistOf(HaveField("Resource.Target.AverageUtilization", HaveValue(BeEquivalentTo(50)))))
			expectEvent(ctx, "web", "Created", "HorizontalPodAutoscaler")
			// Drift is what changes once the spec is observed: before, the
			// apply that puts it back is an update (ReasonUpdated).
			Eventually(ctx, func(g Gomega) {
				got := webServer(ctx, g, "web")
				g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			}).Should(Succeed())

			By("putting back an edit of the autoscaler")
			Eventually(ctx, func(g Gomega) {
				a := autoscalerOf(ctx, g, "web")
				a.Spec.MaxReplicas = 40
				g.Expect(k8sClient.Update(ctx, a)).To(Succeed())
			}).Should(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(autoscalerOf(ctx, g, "web").Spec.MaxReplicas).To(BeEquivalentTo(4))
			}).Should(Succeed())
			expectEvent(ctx, "web", "Repaired", "HorizontalPodAutoscaler")

			By("reporting what the autoscaler says, as the controller manager would write it")
			Eventually(ctx, func(g Gomega) {
				a := autoscalerOf(ctx, g, "web")
				a.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
					CurrentReplicas: 4, DesiredReplicas: 4,
					CurrentMetrics: []autoscalingv2.MetricStatus{cpuAt(190)},
					Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{
						Type: autoscalingv2.ScalingLimited, Status: corev1.ConditionTrue, Reason: "TooManyReplicas",
						Message: "the desired replica count is more than the maximum replica count", LastTransitionTime: metav1.Now(),
					}},
				}
				g.Expect(k8sClient.Status().Update(ctx, a)).To(Succeed())
			}).Should(Succeed())
			Eventually(ctx, func(g Gomega) {
				got := webServer(ctx, g, "web")
				g.Expect(got.Status.Autoscaling).To(HaveValue(And(
					HaveField("CurrentReplicas", BeEquivalentTo(4)), HaveField("DesiredReplicas", BeEquivalentTo(4)),
					HaveField("CurrentCPUUtilizationPercentage", HaveValue(BeEquivalentTo(190))),
				)))
				limited := meta.FindStatusCondition(got.Status.Conditions, seedv1alpha1.WebServerScalingLimited)
				g.Expect(limited).NotTo(BeNil())
				g.Expect(limited.Status).To(Equal(metav1.ConditionTrue))
				g.Expect(limited.Reason).To(Equal(seedv1alpha1.ReasonTooManyReplicas))
			}).Should(Succeed())

			By("recreating a deleted autoscaler")
			Expect(k8sClient.Delete(ctx, made)).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(autoscalerOf(ctx, g, "web").UID).NotTo(Equal(made.UID))
			}).Should(Succeed())
			expectEvent(ctx, "web", "Recreated", "HorizontalPodAutoscaler")

			By("removing it with spec.autoscaling, and leaving replicas where the autoscaler put them")
			update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](3) })
			update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Autoscaling = nil })
			Eventually(ctx, func(g Gomega) {
				err := k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "web"}, &autoscalingv2.HorizontalPodAutoscaler{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the autoscaler is gone: %v", err)
				got := webServer(ctx, g, "web")
				g.Expect(got.Status.Autoscaling).To(BeNil())
				g.Expect(meta.FindStatusCondition(got.Status.Conditions, seedv1alpha1.WebServerScalingLimited)).To(BeNil())
				g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
				g.Expect(*got.Spec.Replicas).To(BeEquivalentTo(3))
			}).Should(Succeed())
			expectEvent(ctx, "web", "Removed", "HorizontalPodAutoscaler")
		})

		It("leaves alone an autoscaler of its name that is not its own", func(ctx SpecContext) {
			create(ctx, "web")
			// Someone's autoscaler, labelled as the operator labels its own, so
			// that the operator's cache holds it.
			theirs := &autoscalingv2.HorizontalPodAutoscaler{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace, Labels: kube.Labels(kind, "web")},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "other"},
					MaxReplicas:    2,
				},
			}
			Expect(k8sClient.Create(ctx, theirs)).To(Succeed())

			By("reconciling the WebServer again, through a change of its spec")
			update(ctx, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](2) })
			Eventually(ctx, func(g Gomega) {
				got := webServer(ctx, g, "web")
				g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			}).Should(Succeed())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), &autoscalingv2.HorizontalPodAutoscaler{})).To(Succeed(),
				"the reconcile that wrote that status would have deleted it first")

			By("refusing to take it over when the WebServer asks for autoscaling")
			update(ctx, "web", autoscaled)
			Eventually(ctx, func(g Gomega) {
				got := webServer(ctx, g, "web")
				ready := meta.FindStatusCondition(got.Status.Conditions, seedv1alpha1.ConditionReady)
				g.Expect(ready).NotTo(BeNil())
				g.Expect(ready.Reason).To(Equal(seedv1alpha1.ReasonNameConflict))
			}).Should(Succeed())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())
			Expect(theirs.Spec.ScaleTargetRef.Name).To(Equal("other"))
			Expect(theirs.OwnerReferences).To(BeEmpty())
		})
	})
})

// expectFirstStatusAfterGrace checks that ws's first status, its Ready
// condition, came no sooner than the grace after deployment's creation.
func expectFirstStatusAfterGrace(ws *seedv1alpha1.WebServer, deployment *appsv1.Deployment) {
	ready := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady)
	Expect(ready).NotTo(BeNil())
	// Both times are in whole seconds.
	Expect(ready.LastTransitionTime.Sub(deployment.CreationTimestamp.Time)).To(BeNumerically(">=", firstStatusGrace-time.Second),
		"from the Deployment's creation to the first status")
}
