//go:build olm

package olm

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("Uninstalled and installed again", Ordered, Serial, func() {
	It("removes the operator but no custom resource, owned object or claim, and adopts them on reinstall", func(ctx SpecContext) {
		ns := createNamespace(ctx, "seed-uninstall")
		operatorGroup(ctx, ns, "seed", ns)
		sub := subscribe(ctx, ns, subscription("stable", "", operatorsv1alpha1.ApprovalAutomatic))
		csv := installed(ctx, sub, csvName(version))
		objects := examples(csv, ns)
		createReady(ctx, objects...)
		before := ownedUIDs(ctx, ns)
		Expect(before).To(HaveKey(HavePrefix("PersistentVolumeClaim/")))
		Expect(before).To(HaveKey(HavePrefix("Deployment/")))
		csvRoles := &rbacv1.ClusterRoleList{}
		Expect(k8sClient.List(ctx, csvRoles, client.MatchingLabels{"olm.owner": csv.Name, "olm.owner.namespace": ns})).To(Succeed())
		Expect(csvRoles.Items).NotTo(BeEmpty(), "OLM made ClusterRoles for the CSV's clusterPermissions")

		By("deleting the Subscription and the CSV")
		uninstall(ctx, ns)
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.List(ctx, csvRoles, client.MatchingLabels{"olm.owner": csv.Name, "olm.owner.namespace": ns})).To(Succeed())
			g.Expect(csvRoles.Items).To(BeEmpty(), "the CSV's ClusterRoles go with it")
		}).Should(Succeed())
		for _, o := range objects {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed(), "%s %s stays", o.GetKind(), o.GetName())
		}
		Expect(ownedUIDs(ctx, ns)).To(Equal(before), "owned objects and claims stay")

		By("installing it again")
		operatorGroup(ctx, ns, "seed", ns)
		sub = subscribe(ctx, ns, subscription("stable", "", operatorsv1alpha1.ApprovalAutomatic))
		installed(ctx, sub, csvName(version))
		for _, o := range objects {
			expectReady(ctx, o)
		}
		Expect(ownedUIDs(ctx, ns)).To(Equal(before), "the reinstalled operator adopts what is there")
		scale(ctx, objects, 1)
		deleteAll(ctx, objects)
	})
})
