//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("On the local cluster", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = restrictedNamespace(ctx, "e2e")
	})

	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: namespace, Name: name} }

	It("enforces the restricted Pod Security Standard in the test namespaces", func(ctx SpecContext) {
		root := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: namespace},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
		}
		err := k8sClient.Create(ctx, root)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring(`violates PodSecurity "restricted:latest"`))
	})

	// Serial: it scrapes the leader.
	It("makes every sample Ready, and its leader says so in its metrics", Serial, func(ctx SpecContext) {
		samples := createSamples(ctx, namespace)
		for _, obj := range samples {
			expectReady(ctx, obj)
		}
		expectMetricsOf(ctx, samples)
	})

	// An object whose owner reference someone removed (kubectl patch, or a
	// delete with --cascade=orphan) is no longer the resource's: the
	// operator leaves it as it is, until its owner reference is back. The
	// cluster runs OwnerReferencesPermissionEnforcement, as OpenShift does.
	It("leaves alone each object kubectl released from its sample, and takes it back with its owner reference", func(ctx SpecContext) {
		samples := createSamples(ctx, namespace)
		for _, obj := range samples {
			expectReady(ctx, obj)
		}
		owned := ownedBySamples(ctx, namespace)
		Expect(owned).To(HaveLen(len(samples)+1), "a WebServer owns two objects, each other kind one")
		references := map[client.Object][]metav1.OwnerReference{}
		for obj := range owned {
			references[obj] = obj.GetOwnerReferences()
			testenv.EditAs(ctx, k8sClient, obj, "kubectl-patch", `{"metadata":{"ownerReferences":null}}`)
		}
		for _, obj := range samples {
			testenv.ExpectCondition(ctx, k8sClient, obj, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonNameConflict)
		}
		// Their status moves on (a CronJob schedules, a pod runs), so the
		// test is that the operator puts no owner reference back.
		Consistently(ctx, func(g Gomega) {
			for obj := range owned {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
				g.Expect(obj.GetOwnerReferences()).To(BeEmpty(), "%T %s", obj, obj.GetName())
			}
		}).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

		for obj, refs := range references {
			patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": refs}})
			Expect(err).NotTo(HaveOccurred())
			testenv.EditAs(ctx, k8sClient, obj, "kubectl-patch", string(patch))
		}
		for _, obj := range samples {
			expectReady(ctx, obj)
		}
		for obj, owner := range owned {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			Expect(metav1.GetControllerOf(obj)).To(HaveValue(HaveField("UID", owner)), "%T %s", obj, obj.GetName())
		}
	})

	Describe("a WebServer", func() {
		var ws *seedv1alpha1.WebServer

		BeforeEach(func(ctx SpecContext) {
			ws = &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}}
			Expect(k8sClient.Create(ctx, ws)).To(Succeed())
			expectReady(ctx, ws)
		})

		It("scales, and rolls out a new image to pods that become Ready", func(ctx SpecContext) {
			testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](3) })
			expectReady(ctx, ws)
			Expect(ws.Status.ReadyReplicas).To(BeEquivalentTo(3))

			const upgrade = "docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine"
			testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = upgrade })
			expectReady(ctx, ws)
			Eventually(ctx, func(g Gomega) {
				pods := &corev1.PodList{}
				g.Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels(kube.SelectorLabels("webserver", ws.Name)))).To(Succeed())
				g.Expect(pods.Items).To(HaveLen(3))
				for _, pod := range pods.Items {
					g.Expect(pod.Spec.Containers[0].Image).To(Equal(upgrade))
					g.Expect(pod.Status.Conditions).To(ContainElement(And(
						HaveField("Type", corev1.PodReady), HaveField("Status", corev1.ConditionTrue))))
				}
			}).Should(Succeed())
		})

		It("under its own RBAC, removes what kubectl added to its Deployment and Service, then still scales and upgrades",
			func(ctx SpecContext) {
				deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}}
				service := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-service", Namespace: namespace}}
				// kubectl set env deployment/web FOREIGN=1; kubectl scale
				// deployment/web --replicas=5; kubectl patch service/web-service
				// with a second port and a label in the selector.
				testenv.EditAs(ctx, k8sClient, deployment, "kubectl-set",
					`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"FOREIGN","value":"1"}]}]}}}}`)
				Eventually(ctx, func(g Gomega) {
					scale := &autoscalingv1.Scale{}
					g.Expect(k8sClient.SubResource("scale").Get(ctx, deployment, scale)).To(Succeed())
					scale.Spec.Replicas = 5
					g.Expect(k8sClient.SubResource("scale").Update(ctx, deployment, client.WithSubResourceBody(scale),
						client.FieldOwner("kubectl"))).To(Succeed())
				}).Should(Succeed())
				testenv.EditAs(ctx, k8sClient, service, "kubectl-patch",
					`{"spec":{"ports":[{"name":"metrics","port":9113,"targetPort":9113}],"selector":{"tier":"frontend"}}}`)

				Eventually(ctx, func(g Gomega) {
					g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(deployment), deployment)).To(Succeed())
					g.Expect(*deployment.Spec.Replicas).To(BeEquivalentTo(1))
					g.Expect(deployment.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Env", BeEmpty())))
					g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(service), service)).To(Succeed())
					g.Expect(service.Spec.Ports).To(HaveLen(1))
					g.Expect(service.Spec.Selector).To(Equal(kube.SelectorLabels("webserver", "web")))
				}).Should(Succeed())
				expectReady(ctx, ws)

				const upgrade = "docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine"
				testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) {
					ws.Spec.Replicas = ptr.To[int32](2)
					ws.Spec.Image = upgrade
				})
				expectReady(ctx, ws)
				Expect(ws.Status.ReadyReplicas).To(BeEquivalentTo(2))
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(deployment), deployment)).To(Succeed())
				Expect(deployment.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", upgrade)))
			})

		// The operator tells the control plane's writes from others' by the
		// field managers' names (apply.IsControlPlane), so the local
		// cluster's components must write under the names they have in any
		// cluster, not that of the program they share.
		It("has its Deployment kept by a field manager named kube-controller-manager", func(ctx SpecContext) {
			deployment := &appsv1.Deployment{}
			Expect(k8sClient.Get(ctx, key("web"), deployment)).To(Succeed())
			Expect(deployment.ManagedFields).To(ContainElement(HaveField("Manager", "kube-controller-manager")))
		})

		It("puts back a deleted Service and a deleted Deployment", func(ctx SpecContext) {
			for _, owned := range []client.Object{
				&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-service", Namespace: namespace}},
				&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}},
			} {
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(owned), owned)).To(Succeed())
				deleted := owned.GetUID()
				Expect(k8sClient.Delete(ctx, owned)).To(Succeed())
				Eventually(ctx, func(g Gomega) {
					g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(owned), owned)).To(Succeed())
					g.Expect(owned.GetUID()).NotTo(Equal(deleted))
				}).Should(Succeed())
			}
			expectReady(ctx, ws)
		})

		It("takes its Deployment, Service and pods with it when deleted", func(ctx SpecContext) {
			Expect(k8sClient.Delete(ctx, ws)).To(Succeed())
			selector := client.MatchingLabels(kube.SelectorLabels("webserver", ws.Name))
			Eventually(ctx, func(g Gomega) {
				for _, list := range []client.ObjectList{
					&appsv1.DeploymentList{}, &appsv1.ReplicaSetList{}, &corev1.PodList{}, &corev1.ServiceList{},
				} {
					g.Expect(k8sClient.List(ctx, list, client.InNamespace(namespace), selector)).To(Succeed())
					g.Expect(meta.LenList(list)).To(BeZero(), "%T", list)
				}
			}).Should(Succeed())
		})
	})

	// A refusal that may pass later is retried with back-off, and each try
	// warns: client-go's event recorder counts the repeats as a series of
	// the first event, with a patch, rather than one event each.
	It("says why a namespace's quota refuses a WebServer's Deployment, warns once with a count of the retries, and recovers when the quota goes",
		func(ctx SpecContext) {
			quota := &corev1.ResourceQuota{
				ObjectMeta: metav1.ObjectMeta{Name: "no-deployments", Namespace: namespace},
				Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"count/deployments.apps": resource.MustParse("0")}},
			}
			Expect(k8sClient.Create(ctx, quota)).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(quota), quota)).To(Succeed())
				g.Expect(quota.Status.Hard).To(HaveKey(corev1.ResourceName("count/deployments.apps")))
			}).Should(Succeed(), "the quota controller counts the namespace's Deployments")

			ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}}
			Expect(k8sClient.Create(ctx, ws)).To(Succeed())
			testenv.ExpectCondition(ctx, k8sClient, ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed)
			Expect(meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady).Message).To(ContainSubstring("exceeded quota: no-deployments"))

			// A retried refusal is counted on its first event.
			testenv.ExpectEvent(ctx, k8sClient, ws, "WebServer", apply.ReasonApplyFailed, "exceeded quota",
				HaveField("Series", HaveValue(HaveField("Count", BeNumerically(">=", 2)))))

			Expect(k8sClient.Delete(ctx, quota)).To(Succeed())
			expectReady(ctx, ws)
		})

	It("replaces an ImmortalContainer's pod deleted, changed by others or completed, counting each start", func(ctx SpecContext) {
		ic := &seedv1alpha1.ImmortalContainer{
			ObjectMeta: metav1.ObjectMeta{Name: "forever", Namespace: namespace},
			Spec: seedv1alpha1.ImmortalContainerSpec{
				Image: "docker.io/library/busybox:1.37.0", Command: []string{"sleep", "infinity"}, RunAsUser: ptr.To[int64](65534),
			},
		}
		Expect(k8sClient.Create(ctx, ic)).To(Succeed())
		expectReady(ctx, ic)
		podKey := key("forever-immortalpod")
		pod := &corev1.Pod{}
		Expect(k8sClient.Get(ctx, podKey, pod)).To(Succeed())

		By("deleting the pod")
		// At once: kwok v0.8.0 plays its delete stage for a terminating pod
		// by name, and once played it twice, the second time on the pod the
		// operator had just made in its place (a kubelet deletes by UID).
		Expect(k8sClient.Delete(ctx, pod, client.GracePeriodSeconds(0))).To(Succeed())
		second := expectNewPod(ctx, podKey, pod.UID)
		expectStarts(ctx, ic, 2)

		By("kubectl patch adding a toleration to the pod, which no pod can lose")
		testenv.EditAs(ctx, k8sClient, second, "kubectl-patch",
			`{"spec":{"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]}}`)
		third := expectNewPod(ctx, podKey, second.UID)
		Expect(third.Spec.Tolerations).NotTo(ContainElement(HaveField("Key", "dedicated")))
		expectStarts(ctx, ic, 3)
		second = third

		By("the pod completing")
		second.Status.Phase = corev1.PodSucceeded
		Expect(k8sClient.Status().Update(ctx, second)).To(Succeed())
		expectNewPod(ctx, podKey, second.UID)
		expectStarts(ctx, ic, 4)
		expectReady(ctx, ic)
	})

	It("runs an Echo's Job to completion and reports Succeeded", func(ctx SpecContext) {
		echo := &seedv1alpha1.Echo{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: namespace},
			Spec:       seedv1alpha1.EchoSpec{Message: "Hello, $(USER) and 'quotes'"},
		}
		Expect(k8sClient.Create(ctx, echo)).To(Succeed())
		expectReady(ctx, echo)
		Expect(echo.Status.Phase).To(Equal(seedv1alpha1.EchoSucceeded))
		Expect(echo.Status.CompletionTime).NotTo(BeNil())
		// The Echo reads its end from the condition the Job controller sets
		// as soon as it knows; the Job counts its pod once it has taken
		// the pod's finalizer off, which may come after.
		Eventually(ctx, func(g Gomega) {
			job := &batchv1.Job{}
			g.Expect(k8sClient.Get(ctx, key("hello"), job)).To(Succeed())
			g.Expect(job.Status.Succeeded).To(BeEquivalentTo(1))
		}).Should(Succeed())
	})

	It("has a ScheduledEcho fire on its schedule", func(ctx SpecContext) {
		scheduled := &seedv1alpha1.ScheduledEcho{
			ObjectMeta: metav1.ObjectMeta{Name: "tick", Namespace: namespace},
			Spec:       seedv1alpha1.ScheduledEchoSpec{Message: "Tick", Schedule: "* * * * *"},
		}
		Expect(k8sClient.Create(ctx, scheduled)).To(Succeed())
		expectReady(ctx, scheduled)
		// The CronJob controller fires on the minute.
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key("tick"), scheduled)).To(Succeed())
			g.Expect(scheduled.Status.LastScheduleTime).NotTo(BeNil())
			g.Expect(scheduled.Status.LastSuccessfulTime).NotTo(BeNil())
		}).WithTimeout(150 * time.Second).Should(Succeed())
	})

	DescribeTable("a DemoVolume's claim, bound by the cluster's default storage class",
		func(ctx SpecContext, policy seedv1alpha1.ReclaimPolicy, kept bool) {
			dv := &seedv1alpha1.DemoVolume{
				ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: namespace},
				Spec:       seedv1alpha1.DemoVolumeSpec{Name: "Data", Size: 2, ReclaimPolicy: policy},
			}
			Expect(k8sClient.Create(ctx, dv)).To(Succeed())
			expectReady(ctx, dv)
			Expect(dv.Status.Capacity).To(Equal("2Gi"))
			Expect(dv.Status.Name).To(Equal("Data"))

			Expect(k8sClient.Delete(ctx, dv)).To(Succeed())
			Eventually(ctx, func() error { return k8sClient.Get(ctx, key("data"), dv) }).Should(Satisfy(apierrors.IsNotFound))
			pvc := &corev1.PersistentVolumeClaim{}
			if !kept {
				Eventually(ctx, func() error { return k8sClient.Get(ctx, key("data"), pvc) }).Should(Satisfy(apierrors.IsNotFound))
				return
			}
			retained := func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, key("data"), pvc)).To(Succeed())
				g.Expect(pvc.DeletionTimestamp).To(BeNil())
				g.Expect(pvc.OwnerReferences).To(BeEmpty())
				g.Expect(pvc.Labels).To(HaveKeyWithValue("seed.example.com/retained", "true"))
				g.Expect(pvc.Status.Phase).To(Equal(corev1.ClaimBound))
			}
			Eventually(ctx, retained).Should(Succeed())
			// The garbage collector has had every chance to delete it.
			Consistently(ctx, retained).WithTimeout(5 * time.Second).Should(Succeed())
		},
		Entry("is kept with its data with Retain", seedv1alpha1.ReclaimRetain, true),
		Entry("is deleted with Delete", seedv1alpha1.ReclaimDelete, false),
	)
})

// createSamples creates every kind's sample in namespace, and returns them.
func createSamples(ctx context.Context, namespace string) []kube.Object {
	samples, err := testenv.Samples()
	Expect(err).NotTo(HaveOccurred())
	created := make([]kube.Object, 0, len(samples))
	for _, sample := range samples {
		obj := typed(sample)
		obj.SetNamespace(namespace)
		Expect(k8sClient.Create(ctx, obj)).To(Succeed(), "sample %s", sample.GetName())
		created = append(created, obj)
	}
	return created
}

// typed converts a sample to its API type.
func typed(u runtime.Unstructured) kube.Object {
	obj, err := k8sClient.Scheme().New(u.GetObjectKind().GroupVersionKind())
	Expect(err).NotTo(HaveOccurred())
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), obj)).To(Succeed())
	return obj.(kube.Object)
}

// expectReady waits until obj is Ready for its current generation, and
// leaves it as last read.
func expectReady(ctx context.Context, obj kube.Object) {
	key := client.ObjectKeyFromObject(obj)
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, key, obj)).To(Succeed())
		ready := meta.FindStatusCondition(obj.GetConditions(), seedv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil(), "no Ready condition yet")
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "%s: %s", ready.Reason, ready.Message)
		g.Expect(ready.ObservedGeneration).To(Equal(obj.GetGeneration()))
	}).Should(Succeed(), "%T %s", obj, key)
}

// expectNewPod waits for a live pod at key other than the one with UID
// previous, and returns it.
func expectNewPod(ctx context.Context, key types.NamespacedName, previous types.UID) *corev1.Pod {
	pod := &corev1.Pod{}
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, key, pod)).To(Succeed())
		g.Expect(pod.UID).NotTo(Equal(previous), "still the earlier pod")
		g.Expect(pod.DeletionTimestamp).To(BeNil())
		g.Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
	}).Should(Succeed())
	return pod
}

// expectStarts waits until an ImmortalContainer has counted n pods.
func expectStarts(ctx context.Context, ic *seedv1alpha1.ImmortalContainer, n int) {
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ic), ic)).To(Succeed())
		g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(n))
		g.Expect(ic.Status.StartTimes).To(HaveLen(n))
	}).Should(Succeed())
}

// ownedBySamples is every object in namespace that one of the operator's
// custom resources controls, with the UID of its owner.
func ownedBySamples(ctx context.Context, namespace string) map[client.Object]types.UID {
	owned := map[client.Object]types.UID{}
	for _, list := range []client.ObjectList{
		&appsv1.DeploymentList{}, &corev1.ServiceList{}, &batchv1.JobList{}, &batchv1.CronJobList{},
		&corev1.PersistentVolumeClaimList{}, &corev1.PodList{},
	} {
		Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		Expect(meta.EachListItem(list, func(item runtime.Object) error {
			obj := item.(client.Object)
			if owner := metav1.GetControllerOf(obj); owner != nil && strings.HasPrefix(owner.APIVersion, seedv1alpha1.GroupVersion.Group+"/") {
				owned[obj] = owner.UID
			}
			return nil
		})).To(Succeed())
	}
	return owned
}
