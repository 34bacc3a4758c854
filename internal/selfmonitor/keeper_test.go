package selfmonitor

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// serviceName is the metrics Service the keeper is for.
const serviceName = "seed-operator-controller-manager-metrics-service"

var _ = Describe("The keeper of the operator's ServiceMonitor and PrometheusRule", Ordered, func() {
	var (
		keeper  *Keeper
		service *corev1.Service
		crds    []client.Object
	)

	BeforeAll(func(ctx SpecContext) {
		service = createService(ctx, serviceName)
		keeper = newKeeper(serviceName)
		Expect(keeper.NeedLeaderElection()).To(BeTrue())
	})

	AfterAll(func(ctx SpecContext) {
		for _, crd := range crds {
			Expect(env.Client.Delete(ctx, crd)).To(Succeed())
		}
	})

	It("creates nothing, and fails nothing, while prometheus-operator's API is not served", func(ctx SpecContext) {
		Expect(keeper.Sync(ctx)).To(Succeed())
	})

	It("creates both, as the operator, once the API is served, named after the Service and owned by it", func(ctx SpecContext) {
		running, stop := context.WithCancel(context.Background())
		DeferCleanup(stop)
		go func() { _ = keeper.Start(running) }()

		for kind, plural := range map[string]string{"ServiceMonitor": "servicemonitors", "PrometheusRule": "prometheusrules"} {
			crds = append(crds, prometheusOperatorCRD(kind, plural))
			Expect(env.Client.Create(ctx, crds[len(crds)-1])).To(Succeed())
		}

		want, err := Objects(service, keeper.Manifests...)
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func(g Gomega) {
			for _, w := range want {
				o := get(ctx, g, w.GetKind())
				g.Expect(o.GetOwnerReferences()).To(ConsistOf(HaveField("UID", service.UID)))
				g.Expect(o.GetLabels()).To(Equal(w.GetLabels()))
				g.Expect(o.Object["spec"]).To(Equal(w.Object["spec"]), w.GetKind())
			}
		}).Should(Succeed())
	})

	It("puts them back when deleted or edited", func(ctx SpecContext) {
		monitor := get(ctx, Default, "ServiceMonitor")
		Expect(env.Client.Delete(ctx, monitor)).To(Succeed())
		rule := get(ctx, Default, "PrometheusRule")
		want := rule.DeepCopy().Object["spec"]
		Expect(unstructured.SetNestedSlice(rule.Object, []any{}, "spec", "groups")).To(Succeed())
		Expect(env.Client.Update(ctx, rule)).To(Succeed())

		Expect(keeper.Sync(ctx)).To(Succeed())
		Expect(get(ctx, Default, "ServiceMonitor").GetUID()).NotTo(Equal(monitor.GetUID()))
		Expect(get(ctx, Default, "PrometheusRule").Object["spec"]).To(Equal(want))
	})

	It("leaves alone an object of its name that is not the operator's", func(ctx SpecContext) {
		other := createService(ctx, "other-metrics")
		theirs := &unstructured.Unstructured{}
		theirs.SetAPIVersion(Group + "/" + Version)
		theirs.SetKind("ServiceMonitor")
		theirs.SetNamespace(other.Namespace)
		theirs.SetName(other.Name)
		theirs.Object["spec"] = map[string]any{"endpoints": []any{map[string]any{"port": "theirs"}}}
		Expect(env.Client.Create(ctx, theirs)).To(Succeed())

		Expect(newKeeper(other.Name).Sync(ctx)).To(Succeed())
		kept := theirs.DeepCopy()
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(theirs), kept)).To(Succeed())
		Expect(kept.Object["spec"]).To(Equal(theirs.Object["spec"]))
		Expect(kept.GetOwnerReferences()).To(BeEmpty())
		Expect(kept.GetResourceVersion()).To(Equal(theirs.GetResourceVersion()), "not written at all")
		rule := theirs.DeepCopy()
		rule.SetKind("PrometheusRule")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(rule), rule)).To(Succeed())
		Expect(rule.GetOwnerReferences()).To(ConsistOf(HaveField("UID", other.UID)), "the other one is made")
	})

	It("says when the Service it is for does not exist", func(ctx SpecContext) {
		Expect(newKeeper("missing").Sync(ctx)).To(MatchError(ContainSubstring(`reading the metrics Service: services "missing" not found`)))
	})
})
