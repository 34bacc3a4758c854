package webserver

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("WebServer autoscaling", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "autoscaling")
	})

	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: namespace, Name: name} }
	autoscalerOf := func(ctx SpecContext, g Gomega, name string) *autoscalingv2.HorizontalPodAutoscaler {
		a := &autoscalingv2.HorizontalPodAutoscaler{}
		g.Expect(k8sClient.Get(ctx, key(name), a)).To(Succeed())
		return a
	}
	webServer := func(ctx SpecContext, g Gomega, name string) *seedv1alpha1.WebServer {
		ws := &seedv1alpha1.WebServer{}
		g.Expect(k8sClient.Get(ctx, key(name), ws)).To(Succeed())
		return ws
	}
	autoscaled := func(ws *seedv1alpha1.WebServer) {
		ws.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		ws.Spec.Autoscaling = &seedv1alpha1.WebServerAutoscaling{MaxReplicas: 4, TargetCPUUtilizationPercentage: ptr.To[int32](50)}
	}
	expectEvent := func(ctx SpecContext, name, reason, kind string) {
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectEvent(ctx, k8sClient, ws, "WebServer", reason, kind)
	}

	It("scales through an autoscaler it owns, keeps it, reports it, and removes it with spec.autoscaling", func(ctx SpecContext) {
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}}
		autoscaled(ws)
		Expect(k8sClient.Create(ctx, ws)).To(Succeed())

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
		testenv.Update(ctx, k8sClient, &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}},
			func(ws *seedv1alpha1.WebServer) {
				ws.Spec.Replicas = ptr.To[int32](3)
			})
		testenv.Update(ctx, k8sClient, &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}},
			func(ws *seedv1alpha1.WebServer) { ws.Spec.Autoscaling = nil })
		Eventually(ctx, func(g Gomega) {
			err := k8sClient.Get(ctx, key("web"), &autoscalingv2.HorizontalPodAutoscaler{})
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
		ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace}}
		Expect(k8sClient.Create(ctx, ws)).To(Succeed())
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
		testenv.Update(ctx, k8sClient, ws, func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](2) })
		Eventually(ctx, func(g Gomega) {
			got := webServer(ctx, g, "web")
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		}).Should(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), &autoscalingv2.HorizontalPodAutoscaler{})).To(Succeed(),
			"the reconcile that wrote that status would have deleted it first")

		By("refusing to take it over when the WebServer asks for autoscaling")
		testenv.Update(ctx, k8sClient, ws, autoscaled)
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
