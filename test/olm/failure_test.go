//go:build olm

package olm

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// What a user who asks for something OLM cannot do is told, and that
// nothing is half installed.
var _ = Describe("Refused by OLM, with a reason", Ordered, Serial, func() {
	It("reports a Subscription to a channel the package does not have", func(ctx SpecContext) {
		ns := createNamespace(ctx, "seed-nochannel")
		operatorGroup(ctx, ns, "seed", ns)
		sub := subscribe(ctx, ns, subscription("nightly", "", operatorsv1alpha1.ApprovalAutomatic))
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sub), sub)).To(Succeed())
			failed := sub.Status.GetCondition(operatorsv1alpha1.SubscriptionResolutionFailed)
			g.Expect(failed.Status).To(Equal(corev1.ConditionTrue))
			g.Expect(failed.Reason).To(Equal("ConstraintsNotSatisfiable"))
			g.Expect(failed.Message).To(ContainSubstring("nightly"))
		}).Should(Succeed())
		expectNothingInstalled(ctx, ns)
	})

	It("reports a namespace with two OperatorGroups", func(ctx SpecContext) {
		ns := createNamespace(ctx, "seed-twogroups")
		operatorGroup(ctx, ns, "seed", ns)
		operatorGroup(ctx, ns, "second", ns)
		subscribe(ctx, ns, subscription("stable", "", operatorsv1alpha1.ApprovalAutomatic))
		Eventually(ctx, func(g Gomega) {
			groups := &operatorsv1.OperatorGroupList{}
			g.Expect(k8sClient.List(ctx, groups, client.InNamespace(ns))).To(Succeed())
			g.Expect(groups.Items).To(HaveLen(2))
			for _, og := range groups.Items {
				c := meta.FindStatusCondition(og.Status.Conditions, operatorsv1.MutlipleOperatorGroupCondition)
				g.Expect(c).NotTo(BeNil(), "OperatorGroup %s", og.Name)
				g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
				g.Expect(c.Reason).To(Equal(operatorsv1.MultipleOperatorGroupsReason))
			}
		}).Should(Succeed())
		csvs := &operatorsv1alpha1.ClusterServiceVersionList{}
		Expect(k8sClient.List(ctx, csvs, client.InNamespace(ns))).To(Succeed())
		Expect(csvs.Items).To(BeEmpty())
		expectNothingInstalled(ctx, ns)
	})
})

// expectNothingInstalled checks that no manager runs in the namespace.
func expectNothingInstalled(ctx context.Context, namespace string) {
	Consistently(ctx, func() error {
		return k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: managerDeployment}, &appsv1.Deployment{})
	}, "3s").Should(MatchError(ContainSubstring("not found")))
}
