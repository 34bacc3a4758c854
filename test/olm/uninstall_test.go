//go:build olm

package olm

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
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
		// As a person would, not within the second: OLM's catalog operator
		// may still be at work on the deleted InstallPlan and hold the
		// deleted CSV in its caches, and a Subscription made then was
		// matched to that CSV, said it was installed, and got no CSV once
		// it was gone (the symptom of operator-lifecycle-manager#1441). It
		// had settled within 5 s of the new Subscription.
		time.Sleep(10 * time.Second)
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

var _ = Describe("Uninstalled, with DemoVolumes and Echoes left", Serial, func() {
	It("leaves no namespace waiting for it: a namespace of DemoVolumes and an Echo goes, and a claim retained elsewhere stays", func(ctx SpecContext) {
		operatorNamespace := createNamespace(ctx, "seed-operator")
		gone, elsewhere := createNamespace(ctx, "seed-gone"), createNamespace(ctx, "seed-elsewhere")
		operatorGroup(ctx, operatorNamespace, "seed", gone, elsewhere)
		sub := subscribe(ctx, operatorNamespace, subscription("stable", "", operatorsv1alpha1.ApprovalAutomatic))
		csv := installed(ctx, sub, csvName(version))
		example := func(namespace, kind, name string) *unstructured.Unstructured {
			for _, o := range examples(csv, namespace) {
				if o.GetKind() == kind {
					o.SetName(name)
					return o
				}
			}
			Fail("no " + kind + " among the alm-examples")
			return nil
		}
		volume := func(namespace, name string, policy seedv1alpha1.ReclaimPolicy) *unstructured.Unstructured {
			o := example(namespace, "DemoVolume", name)
			Expect(unstructured.SetNestedField(o.Object, string(policy), "spec", "reclaimPolicy")).To(Succeed())
			return o
		}
		retainedElsewhere := volume(elsewhere, "retained", seedv1alpha1.ReclaimRetain)
		createReady(ctx, volume(gone, "retained", seedv1alpha1.ReclaimRetain), volume(gone, "deleted", seedv1alpha1.ReclaimDelete), retainedElsewhere,
			example(gone, "Echo", "printed"))
		claim := &corev1.PersistentVolumeClaim{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(retainedElsewhere), claim)).To(Succeed())

		By("uninstalling the operator, then deleting a DemoVolume with Retain: it goes at once, and its namespace holds its claim")
		uninstall(ctx, operatorNamespace)
		deleteAndWait(ctx, retainedElsewhere)
		Eventually(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), pvc)).To(Succeed())
			g.Expect(pvc.UID).To(Equal(claim.UID))
			g.Expect(pvc.DeletionTimestamp).To(BeNil())
			g.Expect(pvc.OwnerReferences).To(ConsistOf(And(HaveField("Kind", "Namespace"), HaveField("Name", elsewhere))),
				"the garbage collector dropped the DemoVolume's reference, and kept the claim")
		}).Should(Succeed())

		By("deleting the namespace that holds the others: nothing in it waits for the operator")
		start := time.Now()
		deleteAndWait(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gone}})
		AddReportEntry("a namespace of DemoVolumes and an Echo deleted after an uninstall", time.Since(start).Round(100*time.Millisecond).String())

		By("the claim retained elsewhere still there")
		Consistently(ctx, func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), pvc)).To(Succeed())
			g.Expect(pvc.UID).To(Equal(claim.UID))
			g.Expect(pvc.DeletionTimestamp).To(BeNil())
		}).WithTimeout(10 * time.Second).Should(Succeed())
	})
})
