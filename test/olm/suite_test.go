//go:build olm

// Package olm tests the operator's lifecycle under OLM v0 on the local
// cluster, as its users meet it: OLM (`make olm-up`) runs in the cluster
// from images built here, a CatalogSource serves the catalog image that
// `make olm-images` built from catalog/, and OLM unpacks the bundle images
// the catalog names with its own Jobs and installs, upgrades and removes
// the operator, whose pods run on the real node.
package olm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

const (
	packageName = "seed-operator"
	// olmNamespace is OLM's, and its global catalog namespace: a
	// CatalogSource there serves every namespace.
	olmNamespace = "olm"
	catalogName  = "seed-operator-catalog"
	// previousCatalogName serves the catalog as the last release
	// published it, for the spec that publishes the next one over it.
	previousCatalogName = "seed-operator-previous"
	managerDeployment   = "seed-operator-controller-manager"
)

var (
	k8sClient client.Client
	// clientset reads the packagemanifests' icon subresource.
	clientset *kubernetes.Clientset
	// version is the version under development, the head of both
	// channels.
	version string
	// catalogImage is the catalog's image, as users add it.
	catalogImage string
	// previousVersion is the last release, and previousCatalogImage the
	// catalog image it published.
	previousVersion, previousCatalogImage string
	// specNamespaces are the namespaces the running spec created.
	specNamespaces []string
)

func TestOLM(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed-operator under OLM")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(3 * time.Minute)
	SetDefaultEventuallyPollingInterval(500 * time.Millisecond)

	kubeconfig := os.Getenv("KUBECONFIG")
	Expect(kubeconfig).NotTo(BeEmpty(), "KUBECONFIG must name the local cluster: run `make test-olm`")
	version = os.Getenv("VERSION")
	Expect(version).NotTo(BeEmpty(), "VERSION must be the operator's version: run `make test-olm`")
	catalogImage = os.Getenv("CATALOG_IMG")
	Expect(catalogImage).NotTo(BeEmpty(), "CATALOG_IMG must name the catalog image: run `make test-olm`")
	previousVersion, previousCatalogImage = os.Getenv("PREVIOUS_VERSION"), os.Getenv("PREVIOUS_CATALOG_IMG")
	Expect(previousVersion).NotTo(BeEmpty(), "PREVIOUS_VERSION must be the last release: run `make test-olm`")
	Expect(previousCatalogImage).NotTo(BeEmpty(), "PREVIOUS_CATALOG_IMG must name its catalog image: run `make test-olm`")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())

	k8sClient, clientset, err = testenv.ClusterClients(cfg, operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme)
	Expect(err).NotTo(HaveOccurred())

	removeOperatorAPIs(ctx)

	start := time.Now()
	serveCatalog(ctx, catalogName, catalogImage)
	AddReportEntry("catalog READY", time.Since(start).Round(100*time.Millisecond).String())
})

// serveCatalog adds a catalog as users add it: a CatalogSource of its
// image, served by a pod OLM runs, in OLM's global catalog namespace. It
// returns once OLM reads the catalog.
func serveCatalog(ctx context.Context, name, image string) *operatorsv1alpha1.CatalogSource {
	source := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: olmNamespace},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType:    operatorsv1alpha1.SourceTypeGrpc,
			Image:         image,
			DisplayName:   "seed-operator",
			Publisher:     "seed-operators",
			GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted},
		},
	}
	deleteCatalog(ctx, source)
	source.ResourceVersion = ""
	Expect(k8sClient.Create(ctx, source)).To(Succeed())
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(source), source)).To(Succeed())
		g.Expect(source.Status.GRPCConnectionState).NotTo(BeNil())
		g.Expect(source.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	}).Should(Succeed())
	return source
}

// olmEntry names the report entry of what OLM says.
const olmEntry = "olm"

// On failure, what OLM says of the spec's namespaces: before the spec's
// cleanup uninstalls its Subscriptions, or after it when the cleanup is
// what failed.
var _ = JustAfterEach(func(ctx SpecContext) {
	if CurrentSpecReport().Failed() {
		AddReportEntry(olmEntry, describeOLM(ctx, specNamespaces))
	}
})

var _ = ReportAfterEach(func(ctx SpecContext, report SpecReport) {
	namespaces := specNamespaces
	specNamespaces = nil
	described := slices.ContainsFunc(report.ReportEntries, func(e types.ReportEntry) bool { return e.Name == olmEntry })
	if report.Failed() && !described {
		AddReportEntry(olmEntry, describeOLM(ctx, namespaces))
	}
})

// removeOperatorAPIs deletes the operator's CRDs, which other suites
// install without OLM, so that OLM installs them as it would for a new
// user. Custom resources left with finalizers and no operator to remove
// them would hold their CRD forever: their finalizers go first.
func removeOperatorAPIs(ctx context.Context) {
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	Expect(k8sClient.List(ctx, crds)).To(Succeed())
	for i := range crds.Items {
		crd := &crds.Items[i]
		if crd.Spec.Group != seedv1alpha1.GroupVersion.Group {
			continue
		}
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(seedv1alpha1.GroupVersion.WithKind(crd.Spec.Names.ListKind))
		Expect(k8sClient.List(ctx, list)).To(Succeed())
		for j := range list.Items {
			obj := &list.Items[j]
			if len(obj.Finalizers) > 0 {
				patch := client.MergeFrom(obj.DeepCopy())
				obj.Finalizers = nil
				Expect(client.IgnoreNotFound(k8sClient.Patch(ctx, obj, patch))).To(Succeed())
			}
		}
		deleteAndWait(ctx, crd)
	}
}

// deleteAndWait deletes the object and waits until it is gone.
func deleteAndWait(ctx context.Context, o client.Object) {
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, o))).To(Succeed())
	Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(o), o) }).
		Should(MatchError(ContainSubstring("not found")))
}

// deleteCatalog deletes a CatalogSource, if there is one, and waits until
// the garbage collector has deleted the bundles OLM unpacked from it. OLM
// names such a ConfigMap for the bundle's image and takes it as unpacked
// for any catalog in the namespace that serves that image: an InstallPlan
// of another catalog that found it just before the collector deleted it
// failed for good ("error finding unpacked bundle configmap").
func deleteCatalog(ctx context.Context, source *operatorsv1alpha1.CatalogSource) {
	live := &operatorsv1alpha1.CatalogSource{}
	err := k8sClient.Get(ctx, client.ObjectKeyFromObject(source), live)
	if apierrors.IsNotFound(err) {
		return
	}
	Expect(err).NotTo(HaveOccurred())
	uid := live.UID
	deleteAndWait(ctx, live)
	Eventually(ctx, func(g Gomega) {
		configMaps := &corev1.ConfigMapList{}
		g.Expect(k8sClient.List(ctx, configMaps, client.InNamespace(live.Namespace))).To(Succeed())
		for _, cm := range configMaps.Items {
			for _, owner := range cm.OwnerReferences {
				g.Expect(owner.UID).NotTo(Equal(uid), "ConfigMap %s, unpacked from the deleted catalog %s", cm.Name, live.Name)
			}
		}
	}).Should(Succeed())
}

// bundleCSV is the ClusterServiceVersion of the version under development,
// as bundle/ holds it.
func bundleCSV() *operatorsv1alpha1.ClusterServiceVersion {
	return csvIn(filepath.Join(testenv.ProjectRoot(), "bundle"))
}

// csvIn reads the ClusterServiceVersion of the bundle folder dir.
func csvIn(dir string) *operatorsv1alpha1.ClusterServiceVersion {
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Expect(testenv.ReadYAML(filepath.Join(dir, "manifests", packageName+".clusterserviceversion.yaml"), csv)).To(Succeed())
	return csv
}

// createNamespace creates a namespace that enforces the restricted Pod
// Security Standard and whose pods run on the real node, deleted after the
// spec.
func createNamespace(ctx context.Context, prefix string) string {
	return createNamespaceAt(ctx, prefix, "restricted")
}

// createNamespaceAt is createNamespace's, at another level of the Pod
// Security Standards.
func createNamespaceAt(ctx context.Context, prefix, level string) string {
	ns := testenv.Namespace(ctx, k8sClient, prefix, level, cluster.RealNodeAnnotations())
	specNamespaces = append(specNamespaces, ns)
	return ns
}

// describeOLM lists, in the given namespaces, the Subscriptions' state and
// conditions, the InstallPlans' and CSVs' phases, and the pods.
func describeOLM(ctx context.Context, namespaces []string) string {
	var b strings.Builder
	for _, ns := range append([]string{olmNamespace}, namespaces...) {
		subs, plans, csvs, pods := &operatorsv1alpha1.SubscriptionList{}, &operatorsv1alpha1.InstallPlanList{},
			&operatorsv1alpha1.ClusterServiceVersionList{}, &corev1.PodList{}
		for _, list := range []client.ObjectList{subs, plans, csvs, pods} {
			if err := k8sClient.List(ctx, list, client.InNamespace(ns)); err != nil {
				return err.Error()
			}
		}
		for _, s := range subs.Items {
			fmt.Fprintf(&b, "subscription %s/%s state=%s installed=%s current=%s conditions=%v\n", ns, s.Name,
				s.Status.State, s.Status.InstalledCSV, s.Status.CurrentCSV, s.Status.Conditions)
		}
		for _, p := range plans.Items {
			fmt.Fprintf(&b, "installplan %s/%s csvs=%v approval=%s approved=%t phase=%s conditions=%v\n", ns, p.Name,
				p.Spec.ClusterServiceVersionNames, p.Spec.Approval, p.Spec.Approved, p.Status.Phase, p.Status.Conditions)
		}
		for _, c := range csvs.Items {
			fmt.Fprintf(&b, "csv %s/%s phase=%s reason=%s message=%q\n", ns, c.Name, c.Status.Phase, c.Status.Reason, c.Status.Message)
		}
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "pod %s/%s node=%q phase=%s\n", ns, p.Name, p.Spec.NodeName, p.Status.Phase)
			for _, s := range p.Status.ContainerStatuses {
				if s.State.Waiting != nil {
					fmt.Fprintf(&b, "  %s waiting: %s %s\n", s.Name, s.State.Waiting.Reason, s.State.Waiting.Message)
				}
			}
		}
	}
	deployments := &appsv1.DeploymentList{}
	if err := k8sClient.List(ctx, deployments, client.InNamespace(olmNamespace)); err == nil {
		for _, d := range deployments.Items {
			fmt.Fprintf(&b, "deployment %s/%s ready=%d\n", d.Namespace, d.Name, d.Status.ReadyReplicas)
		}
	}
	return b.String()
}
