//go:build olm

package olm

import (
	"context"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

// OLM v1's API (`make olmv1-up`), read as unstructured objects: its Go
// types live in a module whose dependencies are not the operator's.
var (
	clusterCatalogKind   = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterCatalog"}
	clusterExtensionKind = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterExtension"}
)

var _ = Describe("Installed by OLM v1 from the catalog", Ordered, Serial, func() {
	var (
		installNamespace string
		extension        *unstructured.Unstructured
	)

	BeforeAll(func(ctx SpecContext) {
		// OLM v1 installs a bundle as a release of its own and refuses to
		// take over objects another installer made: the CRDs go, and the
		// bundles' ClusterRoles, which OLM v0 leaves behind when it
		// removes a CSV, as for a cluster that never had the operator.
		removeOperatorAPIs(ctx)
		removeBundleClusterRoles(ctx)
		installNamespace = createNamespace(ctx, "seed-olmv1")
		installer := installerAccount(ctx, installNamespace)

		By("serving the catalog image through a ClusterCatalog")
		catalog := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": catalogName},
			"spec": map[string]any{"source": map[string]any{
				"type": "Image", "image": map[string]any{"ref": catalogImage},
			}},
		}}
		catalog.SetGroupVersionKind(clusterCatalogKind)
		start := time.Now()
		Expect(k8sClient.Create(ctx, catalog)).To(Succeed())
		DeferCleanup(deleteAndWait, catalog)
		expectCondition(ctx, catalog, "Serving", "True")
		AddReportEntry("OLM v1: ClusterCatalog created to Serving", time.Since(start).Round(100*time.Millisecond).String())

		extension = &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": packageName},
			"spec": map[string]any{
				"namespace":      installNamespace,
				"serviceAccount": map[string]any{"name": installer},
				"source": map[string]any{"sourceType": "Catalog", "catalog": map[string]any{
					"packageName": packageName, "channels": []any{"candidate"}, "version": previousVersion,
				}},
			},
		}}
		extension.SetGroupVersionKind(clusterExtensionKind)
	})

	It("installs the last release in AllNamespaces mode, and reconciles its example in another namespace", func(ctx SpecContext) {
		start := time.Now()
		Expect(k8sClient.Create(ctx, extension)).To(Succeed())
		DeferCleanup(uninstallExtension, extension, installNamespace)
		expectInstalled(ctx, extension, previousVersion)
		AddReportEntry("OLM v1: ClusterExtension created to Installed "+previousVersion, time.Since(start).Round(100*time.Millisecond).String())
		d := manager(ctx, installNamespace)
		Expect(managerImageOf(d)).To(Equal(managerImage(previousVersion)))
		expectWatching(ctx, d, nil)

		ns := createNamespace(ctx, "seed-olmv1-workload")
		objects := examples(releasedCSV(previousVersion), ns)
		DeferCleanup(deleteAll, objects)
		createReady(ctx, objects...)
		before := ownedUIDs(ctx, ns)
		Expect(before).NotTo(BeEmpty())

		// OLM v1's CRD upgrade safety check refuses a change it cannot
		// judge (a CEL rule, a description of a field that exists) until
		// the ClusterExtension opts out; new fields pass it. A patch
		// release's CRDs only add fields, so users upgrade with the check
		// on.
		By("upgrading to " + version + " once the version is bumped, with the CRD upgrade safety check enforced")
		start = time.Now()
		testenv.Update(ctx, k8sClient, extension, func(e *unstructured.Unstructured) {
			Expect(unstructured.SetNestedField(e.Object, version, "spec", "source", "catalog", "version")).To(Succeed())
		})
		expectInstalled(ctx, extension, version)
		Expect(managerImageOf(manager(ctx, installNamespace))).To(Equal(managerImage(version)))
		AddReportEntry("OLM v1: upgrade "+previousVersion+" -> "+version+", version bumped to Installed", time.Since(start).Round(100*time.Millisecond).String())

		By("keeping every custom resource and owned object, reconciled by " + version)
		expectStoredVersionsServed(ctx)
		for _, o := range objects {
			expectReady(ctx, o)
		}
		Expect(ownedUIDs(ctx, ns)).To(Equal(before), "no owned object was recreated")
		scale(ctx, objects, 2)
	})
})

// installerAccount makes the ServiceAccount OLM v1 installs the bundle as.
// OLM v1 acts with that account's rights only; what the bundle holds
// (CRDs, ClusterRoles and their bindings, a Deployment) and the rights the
// operator's roles grant, which the installer must hold to grant them,
// amount to cluster-admin, which upstream's own guide binds as well.
func installerAccount(ctx context.Context, namespace string) string {
	const name = "seed-operator-installer"
	Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}})).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}},
	}
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	DeferCleanup(deleteAndWait, binding)
	return name
}

// expectInstalled waits until the ClusterExtension is Installed at the
// version, for its current generation.
func expectInstalled(ctx context.Context, extension *unstructured.Unstructured, version string) {
	expectCondition(ctx, extension, "Installed", "True")
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(extension), extension)).To(Succeed())
		g.Expect(installedVersion(extension)).To(Equal(version))
	}).Should(Succeed())
}

// installedVersion is the bundle version the ClusterExtension's status
// says is installed.
func installedVersion(extension *unstructured.Unstructured) string {
	installed, _, err := unstructured.NestedString(extension.Object, "status", "install", "bundle", "version")
	Expect(err).NotTo(HaveOccurred())
	return installed
}

// expectCondition waits until the object's condition has the status for
// its current generation, and matches whatever else is asked of it.
func expectCondition(ctx context.Context, o *unstructured.Unstructured, condition, status string, also ...types.GomegaMatcher) {
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
		conditions, _, err := unstructured.NestedSlice(o.Object, "status", "conditions")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(conditions).To(ContainElement(And(append([]types.GomegaMatcher{
			HaveKeyWithValue("type", condition),
			HaveKeyWithValue("status", status),
			HaveKeyWithValue("observedGeneration", BeNumerically("==", o.GetGeneration())),
		}, also...)...)), "%s %s: %v", o.GetKind(), o.GetName(), conditions)
	}).Should(Succeed())
}

// uninstallExtension deletes the ClusterExtension, and waits until OLM v1
// has removed the operator's Deployment.
func uninstallExtension(ctx context.Context, extension *unstructured.Unstructured, namespace string) {
	deleteAndWait(ctx, extension)
	expectManagerGone(ctx, namespace)
}

// removeBundleClusterRoles deletes the ClusterRoles that the bundle of any
// version in the catalog holds.
func removeBundleClusterRoles(ctx context.Context) {
	var manifests []string
	for _, bundle := range []string{filepath.Join("bundles", "*"), "bundle"} {
		files, err := filepath.Glob(filepath.Join(testenv.ProjectRoot(), bundle, "manifests", "*_clusterrole.yaml"))
		Expect(err).NotTo(HaveOccurred())
		manifests = append(manifests, files...)
	}
	Expect(manifests).NotTo(BeEmpty())
	for _, file := range manifests {
		role := &rbacv1.ClusterRole{}
		Expect(testenv.ReadYAML(file, role)).To(Succeed())
		deleteAndWait(ctx, role)
	}
}

// releasedCSV is the ClusterServiceVersion of a released version, as
// bundles/ holds it.
func releasedCSV(version string) *operatorsv1alpha1.ClusterServiceVersion {
	return csvIn(filepath.Join(testenv.ProjectRoot(), "bundles", version))
}
