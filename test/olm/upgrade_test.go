//go:build olm

package olm

import (
	"context"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// first is the first release, where users on candidate start.
const first = "0.1.0"

var _ = Describe("Upgraded by OLM along the candidate channel", Ordered, Serial, func() {
	It("upgrades from the first release with Manual approval, keeping the custom resources and their objects", func(ctx SpecContext) {
		ns := createNamespace(ctx, "seed-upgrade")
		operatorGroup(ctx, ns, "seed", ns)
		sub := subscribe(ctx, ns, subscription("candidate", csvName(first), operatorsv1alpha1.ApprovalManual))

		By("installing " + first + " once its InstallPlan is approved")
		approve(ctx, pendingPlan(ctx, ns, csvName(first)))
		old := installed(ctx, sub, csvName(first))
		Expect(managerImageOf(manager(ctx, ns))).To(Equal(managerImage(first)))
		objects, resources, before := createExamples(ctx, old, ns)

		By("holding the upgrade until it is approved")
		plan := pendingPlan(ctx, ns, csvName(version))
		Consistently(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sub), sub)).To(Succeed())
			g.Expect(sub.Status.InstalledCSV).To(Equal(csvName(first)))
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: managerDeployment}, d)).To(Succeed())
			g.Expect(managerImageOf(d)).To(Equal(managerImage(first)))
		}, "5s").Should(Succeed())

		By("upgrading to " + version)
		start := time.Now()
		approve(ctx, plan)
		installed(ctx, sub, csvName(version))
		AddReportEntry("upgrade "+first+" -> "+version+" (Manual), approval to CSV Succeeded", time.Since(start).Round(100*time.Millisecond).String())
		expectUpgradeKept(ctx, ns, first, objects, resources, before)

		By("switching to the stable channel, whose head is the same version")
		patch := client.MergeFrom(sub.DeepCopy())
		sub.Spec.Channel = "stable"
		Expect(k8sClient.Patch(ctx, sub, patch)).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sub), sub)).To(Succeed())
			g.Expect(sub.Status.State).To(BeEquivalentTo(operatorsv1alpha1.SubscriptionStateAtLatest))
		}).Should(Succeed())
		Consistently(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sub), sub)).To(Succeed())
			g.Expect(sub.Status.InstalledCSV).To(Equal(csvName(version)))
			plans := &operatorsv1alpha1.InstallPlanList{}
			g.Expect(k8sClient.List(ctx, plans, client.InNamespace(ns))).To(Succeed())
			g.Expect(plans.Items).To(HaveLen(2), "no InstallPlan beyond the install and the upgrade")
		}, "5s").Should(Succeed())
	})

	It("upgrades from the first release with Automatic approval, through the graph's skipRange", func(ctx SpecContext) {
		ns := createNamespace(ctx, "seed-upgrade")
		operatorGroup(ctx, ns, "seed", ns)
		start := time.Now()
		sub := subscribe(ctx, ns, subscription("candidate", csvName(first), operatorsv1alpha1.ApprovalAutomatic))
		installed(ctx, sub, csvName(version))
		AddReportEntry("install "+first+" then upgrade to "+version+" (Automatic), Subscription to CSV Succeeded",
			time.Since(start).Round(100*time.Millisecond).String())

		// Two InstallPlans, both approved without anyone: the first
		// release, then the head of the channel, which skips every
		// version between.
		plans := &operatorsv1alpha1.InstallPlanList{}
		Expect(k8sClient.List(ctx, plans, client.InNamespace(ns))).To(Succeed())
		installs := make([][]string, 0, len(plans.Items))
		for _, p := range plans.Items {
			Expect(p.Spec.Approval).To(Equal(operatorsv1alpha1.ApprovalAutomatic))
			Expect(p.Spec.Approved).To(BeTrue())
			Expect(p.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete))
			installs = append(installs, p.Spec.ClusterServiceVersionNames)
		}
		Expect(installs).To(ConsistOf([]string{csvName(first)}, []string{csvName(version)}))
		csv := installed(ctx, sub, csvName(version))
		Expect(csv.Spec.Replaces).To(Equal(csvName(first)), "OLM records the version it replaced: 0.2.0 was skipped")
		objects := examples(csv, ns)
		DeferCleanup(deleteAll, objects)
		createReady(ctx, objects...)
	})

	It("upgrades by itself when the catalog publishes the next version, keeping the custom resources and their objects", func(ctx SpecContext) {
		By("installing " + previousVersion + ", the head of the catalog it published, and creating its examples")
		source, ns, sub, old := installPrevious(ctx, "seed-upgrade")
		volumes := createDataVolumes(ctx, ns)
		objects, resources, owned := createExamples(ctx, old, ns)

		By("publishing the catalog of " + version + " in its place")
		start := time.Now()
		publish(ctx, source)
		installed(ctx, sub, csvName(version))
		upgraded := time.Now()
		AddReportEntry("catalog "+previousVersion+" -> "+version+" (Automatic), catalog published to CSV Succeeded",
			upgraded.Sub(start).Round(100*time.Millisecond).String())
		expectUpgradeKept(ctx, ns, previousVersion, objects, resources, owned)
		volumes.expectKept(ctx, upgraded)
	})
})

// installPrevious serves the catalog as the last release published it,
// subscribes a new namespace to its stable channel with Automatic
// approval, for all namespaces, and waits until that release is
// installed. AllNamespaces, in which every release's reads of objects of
// no namespace are granted: up to 0.3.0 they were in the manager's Role
// (since 0.3.1, cluster permissions).
func installPrevious(ctx context.Context, prefix string) (
	*operatorsv1alpha1.CatalogSource, string, *operatorsv1alpha1.Subscription, *operatorsv1alpha1.ClusterServiceVersion,
) {
	source := serveCatalog(ctx, previousCatalogName, previousCatalogImage)
	DeferCleanup(deleteCatalog, source)
	ns := createNamespace(ctx, prefix)
	operatorGroup(ctx, ns, "seed")
	spec := subscription("stable", "", operatorsv1alpha1.ApprovalAutomatic)
	spec.CatalogSource = previousCatalogName
	sub := subscribe(ctx, ns, spec)
	return source, ns, sub, installed(ctx, sub, csvName(previousVersion))
}

// publish makes the catalog source serve this version's catalog, as a
// release day does.
func publish(ctx context.Context, source *operatorsv1alpha1.CatalogSource) {
	patch := client.MergeFrom(source.DeepCopy())
	source.Spec.Image = catalogImage
	Expect(k8sClient.Patch(ctx, source, patch)).To(Succeed())
}

// createExamples creates the CSV's examples in namespace, deleted after
// the spec, and waits until they are Ready; it returns them, their UIDs
// and their owned objects' UIDs, for expectUpgradeKept.
func createExamples(ctx context.Context, csv *operatorsv1alpha1.ClusterServiceVersion, namespace string) (
	objects []*unstructured.Unstructured, resources, owned map[string]types.UID,
) {
	objects = examples(csv, namespace)
	DeferCleanup(deleteAll, objects)
	createReady(ctx, objects...)
	owned = ownedUIDs(ctx, namespace)
	Expect(owned).NotTo(BeEmpty())
	return objects, uidsOf(ctx, objects), owned
}

// expectUpgradeKept checks, once the version under development has
// replaced the version from in namespace, what the upgrade must keep and
// do: its manager running, the replaced CSV removed, the CRDs' stored
// versions served, every custom resource Ready and neither it nor an
// owned object recreated (their UIDs before), and a scale reconciled.
func expectUpgradeKept(ctx context.Context, namespace, from string, objects []*unstructured.Unstructured, resources, owned map[string]types.UID) {
	Expect(managerImageOf(manager(ctx, namespace))).To(Equal(managerImage(version)))
	Eventually(ctx, func() error {
		return k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: csvName(from)}, &operatorsv1alpha1.ClusterServiceVersion{})
	}).Should(MatchError(ContainSubstring("not found")), "the replaced CSV is removed")

	By("keeping every custom resource and owned object, reconciled by " + version)
	expectStoredVersionsServed(ctx)
	for _, o := range objects {
		expectReady(ctx, o)
	}
	Expect(uidsOf(ctx, objects)).To(Equal(resources), "no custom resource was recreated")
	Expect(ownedUIDs(ctx, namespace)).To(Equal(owned), "no owned object was recreated")
	expectEchoJobsFree(ctx, objects)
	scale(ctx, objects, 3)
}

// expectEchoJobsFree checks that the Job of each Echo among objects is
// not held by the finalizer that releases up to 0.3.1 gave it, which made
// deleting its namespace wait for the operator.
func expectEchoJobsFree(ctx context.Context, objects []*unstructured.Unstructured) {
	for _, o := range objects {
		if o.GetKind() != "Echo" {
			continue
		}
		Eventually(ctx, func(g Gomega) {
			job := &batchv1.Job{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), job)).To(Succeed())
			g.Expect(job.Finalizers).To(BeEmpty(), "the Job of Echo %s", o.GetName())
		}).Should(Succeed())
	}
}

// uidsOf are the UIDs the custom resources have now, by kind and name.
func uidsOf(ctx context.Context, objects []*unstructured.Unstructured) map[string]types.UID {
	uids := map[string]types.UID{}
	for _, o := range objects {
		current := o.DeepCopy()
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), current)).To(Succeed())
		uids[o.GetKind()+"/"+o.GetName()] = current.GetUID()
	}
	return uids
}

// ownedUIDs are the UIDs of the Deployments, Services and claims in the
// namespace that a custom resource of the operator owns, by kind and name.
func ownedUIDs(ctx context.Context, namespace string) map[string]types.UID {
	uids := map[string]types.UID{}
	lists := map[string]client.ObjectList{
		"Deployment": &appsv1.DeploymentList{}, "Service": &corev1.ServiceList{},
		"PersistentVolumeClaim": &corev1.PersistentVolumeClaimList{},
	}
	for kind, list := range lists {
		Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		items, err := meta.ExtractList(list)
		Expect(err).NotTo(HaveOccurred())
		for _, item := range items {
			o := item.(client.Object)
			for _, ref := range o.GetOwnerReferences() {
				if strings.HasPrefix(ref.APIVersion, seedv1alpha1.GroupVersion.Group+"/") {
					uids[kind+"/"+o.GetName()] = o.GetUID()
				}
			}
		}
	}
	return uids
}

// expectStoredVersionsServed checks each of the operator's CRDs: every
// version etcd may still hold objects in is one the CRD serves.
func expectStoredVersionsServed(ctx context.Context) {
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	Expect(k8sClient.List(ctx, crds)).To(Succeed())
	for _, crd := range crds.Items {
		if crd.Spec.Group != seedv1alpha1.GroupVersion.Group {
			continue
		}
		var served []string
		for _, v := range crd.Spec.Versions {
			if v.Served {
				served = append(served, v.Name)
			}
		}
		for _, stored := range crd.Status.StoredVersions {
			Expect(slices.Contains(served, stored)).To(BeTrue(), "%s stores %s, which it does not serve", crd.Name, stored)
		}
	}
}

// scale sets the WebServers' replicas, and waits until the operator has
// rolled their Deployments to that: the new version reconciles what the
// old one created.
func scale(ctx context.Context, objects []*unstructured.Unstructured, replicas int64) {
	for _, o := range objects {
		if o.GetKind() != "WebServer" {
			continue
		}
		testenv.Update(ctx, k8sClient, o, func(o *unstructured.Unstructured) {
			Expect(unstructured.SetNestedField(o.Object, replicas, "spec", "replicas")).To(Succeed())
		})
		Eventually(ctx, func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), d)).To(Succeed())
			g.Expect(*d.Spec.Replicas).To(BeNumerically("==", replicas))
			g.Expect(d.Status.ReadyReplicas).To(BeNumerically("==", replicas))
		}).Should(Succeed())
		expectReady(ctx, o)
	}
}
