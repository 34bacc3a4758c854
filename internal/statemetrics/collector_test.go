package statemetrics

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// series are the values of the named metric's series whose labels have
// the given values.
func series(g Gomega, name string, labels map[string]string) []float64 {
	m, err := testenv.ProcessMetrics()
	g.Expect(err).NotTo(HaveOccurred())
	return m.Values(name, labels)
}

var _ = Describe("The resources' state metrics", func() {
	DescribeTable("a resource's series are served while it exists, from its status, and go with it",
		func(ctx SpecContext, kind string, obj client.Object) {
			obj.SetNamespace(env.Namespace(ctx, "statemetrics"))
			obj.SetName("one")
			Expect(env.Client.Create(ctx, obj)).To(Succeed())
			resource := map[string]string{"kind": kind, "namespace": obj.GetNamespace(), "name": "one"}
			because := func(reason string) map[string]string {
				return map[string]string{"kind": kind, "namespace": obj.GetNamespace(), "name": "one", "reason": reason}
			}

			By("not Ready, with no reason, and a generation behind, before any status")
			Eventually(ctx, func(g Gomega) {
				g.Expect(series(g, "seed_resource_ready", because(""))).To(Equal([]float64{0}))
				g.Expect(series(g, "seed_resource_generation_lag", resource)).To(Equal([]float64{1}))
			}).Should(Succeed())

			By("Ready, and why, once the status says so")
			withConditions, ok := obj.(interface{ SetConditions([]metav1.Condition) })
			Expect(ok).To(BeTrue())
			withConditions.SetConditions([]metav1.Condition{{Type: seedv1alpha1.ConditionReady, Status: metav1.ConditionTrue,
				Reason: "Done", Message: "Done", ObservedGeneration: obj.GetGeneration(), LastTransitionTime: metav1.Now()}})
			Expect(env.Client.Status().Update(ctx, obj)).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				g.Expect(series(g, "seed_resource_ready", resource)).To(Equal([]float64{1}))
				g.Expect(series(g, "seed_resource_ready", because("Done"))).To(Equal([]float64{1}))
				g.Expect(series(g, "seed_resource_generation_lag", resource)).To(Equal([]float64{0}))
			}).Should(Succeed())

			By("no series of its namespace once it is deleted")
			Expect(env.Client.Delete(ctx, obj)).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				m, err := testenv.ProcessMetrics()
				g.Expect(err).NotTo(HaveOccurred())
				for name := range m {
					g.Expect(m.Values(name, map[string]string{"namespace": obj.GetNamespace()})).To(BeEmpty(), name)
				}
			}).Should(Succeed())
		},
		Entry("WebServer", "WebServer", &seedv1alpha1.WebServer{}),
		Entry("Echo", "Echo", &seedv1alpha1.Echo{Spec: seedv1alpha1.EchoSpec{Message: "hello"}}),
		Entry("ScheduledEcho", "ScheduledEcho", &seedv1alpha1.ScheduledEcho{Spec: seedv1alpha1.ScheduledEchoSpec{Message: "tick", Schedule: "* * * * *"}}),
		Entry("ImmortalContainer", "ImmortalContainer", &seedv1alpha1.ImmortalContainer{Spec: seedv1alpha1.ImmortalContainerSpec{Image: "busybox"}}),
		Entry("DemoVolume", "DemoVolume", &seedv1alpha1.DemoVolume{Spec: seedv1alpha1.DemoVolumeSpec{Name: "data", Size: 1}}),
	)

	It("counts the owned objects the cache keeps: those the operator manages", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "statemetrics")
		services := map[string]string{"kind": "Service"}
		var before []float64
		Eventually(ctx, func(g Gomega) {
			before = series(g, "seed_cache_objects", services)
			g.Expect(before).To(HaveLen(1))
		}).Should(Succeed())

		service := func(name string, labels map[string]string) *corev1.Service {
			return &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
				Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
			}
		}
		Expect(env.Client.Create(ctx, service("managed", kube.Labels("webserver", "web")))).To(Succeed())
		Expect(env.Client.Create(ctx, service("someone-elses", nil))).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(series(g, "seed_cache_objects", services)).To(Equal([]float64{before[0] + 1}))
		}).Should(Succeed())
		Consistently(ctx, func(g Gomega) {
			g.Expect(series(g, "seed_cache_objects", services)).To(Equal([]float64{before[0] + 1}))
		}, "1s").Should(Succeed())
	})
})
