//go:build olm

package olm

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// The second door: operator-sdk run bundle installs from a bundle image
// alone, run bundle-upgrade moves it to a newer bundle, the scorecard runs
// its tests as pods beside it, and cleanup removes it all. The CLI reads
// its images from the registry's HTTPS twin, as from any registry users
// have; OLM and the scorecard's pods pull them through the node.
var _ = Describe("Installed by operator-sdk run bundle", Ordered, Serial, func() {
	var (
		sdk     sdkCLI
		ns      string
		objects []*unstructured.Unstructured
		before  map[string]types.UID
	)

	BeforeAll(func(ctx SpecContext) {
		sdk = newSDKCLI()
		// operator-sdk's registry and scorecard pods leave their init
		// containers' security context unset, which the restricted
		// standard refuses.
		ns = createNamespaceAt(ctx, "seed-run-bundle", "baseline")
	})
	BeforeEach(func() {
		if !slices.Contains(specNamespaces, ns) {
			specNamespaces = append(specNamespaces, ns)
		}
	})

	It("installs the first release from its bundle image", func(ctx SpecContext) {
		start := time.Now()
		sdk.run(ctx, "run", "bundle", sdk.bundle(first), "--index-image", sdk.indexImage,
			"--namespace", ns, "--timeout", "5m")
		AddReportEntry("run bundle "+first+", wall time", time.Since(start).Round(100*time.Millisecond).String())

		csv := succeeded(ctx, ns, csvName(first))
		Expect(managerImageOf(manager(ctx, ns))).To(Equal(managerImage(first)))
		objects = examples(csv, ns)
		createReady(ctx, objects...)
		before = ownedUIDs(ctx, ns)
		Expect(before).NotTo(BeEmpty())
	})

	It("upgrades it to the version under development with run bundle-upgrade", func(ctx SpecContext) {
		start := time.Now()
		sdk.run(ctx, "run", "bundle-upgrade", sdk.bundle(version), "--namespace", ns, "--timeout", "5m")
		AddReportEntry("run bundle-upgrade "+first+" -> "+version+", wall time", time.Since(start).Round(100*time.Millisecond).String())

		succeeded(ctx, ns, csvName(version))
		Expect(managerImageOf(manager(ctx, ns))).To(Equal(managerImage(version)))
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: csvName(first)}, &operatorsv1alpha1.ClusterServiceVersion{})
		}).Should(MatchError(ContainSubstring("not found")), "the replaced CSV is removed")
		for _, o := range objects {
			expectReady(ctx, o)
		}
		Expect(ownedUIDs(ctx, ns)).To(Equal(before), "no owned object was recreated")
	})

	It("passes every scorecard test, run as pods in the cluster", func(ctx SpecContext) {
		// The service account and binding docs/olm.md gives.
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "seed-scorecard", Namespace: ns}}
		Expect(k8sClient.Create(ctx, sa)).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "seed-scorecard", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "seed-operator-editor-role"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
		})).To(Succeed())

		start := time.Now()
		out := sdk.run(ctx, "scorecard", filepath.Join(testenv.ProjectRoot(), "bundle"), "--namespace", ns,
			"--service-account", sa.Name, "--wait-time", "5m", "--untar-image", sdk.untarImage, "--output", "json")
		AddReportEntry("scorecard in the cluster, wall time", time.Since(start).Round(100*time.Millisecond).String())

		var list scapiv1alpha3.TestList
		Expect(json.Unmarshal([]byte(out), &list)).To(Succeed(), out)
		Expect(list.Items).To(HaveLen(len(scorecardTests())), "one result per test of the scorecard config")
		for _, test := range list.Items {
			Expect(test.Status.Results).NotTo(BeEmpty(), "%v", test.Spec.Entrypoint)
			for _, r := range test.Status.Results {
				Expect(r.State).To(Equal(scapiv1alpha3.PassState), "%s: %v\n%s", r.Name, r.Errors, r.Log)
			}
		}
	})

	It("is removed, with its CRDs, by cleanup", func(ctx SpecContext) {
		start := time.Now()
		sdk.run(ctx, "cleanup", packageName, "--namespace", ns, "--timeout", "3m")
		AddReportEntry("cleanup, wall time", time.Since(start).Round(100*time.Millisecond).String())

		for _, list := range []client.ObjectList{
			&operatorsv1alpha1.SubscriptionList{}, &operatorsv1alpha1.ClusterServiceVersionList{},
			&operatorsv1alpha1.CatalogSourceList{}, &operatorsv1.OperatorGroupList{},
		} {
			Eventually(ctx, func(g Gomega) {
				g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
				items, err := meta.ExtractList(list)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(items).To(BeEmpty(), "%T", list)
			}).Should(Succeed())
		}
		expectManagerGone(ctx, ns)
		Eventually(ctx, func(g Gomega) {
			crds := &apiextensionsv1.CustomResourceDefinitionList{}
			g.Expect(k8sClient.List(ctx, crds)).To(Succeed())
			g.Expect(crds.Items).NotTo(ContainElement(HaveField("Spec.Group", seedv1alpha1.GroupVersion.Group)))
		}).Should(Succeed())
	})
})

// sdkCLI runs operator-sdk as its users do, with the images this machine
// serves.
type sdkCLI struct {
	binary string
	// registry is the HTTPS registry's host:port; caFile verifies it.
	registry, caFile string
	// indexImage is the catalog run bundle adds the bundle to, an empty
	// one; untarImage unpacks the bundle in the scorecard's pods.
	indexImage, untarImage string
	// bundles are the bundle images by version.
	bundles map[string]string
}

func newSDKCLI() sdkCLI {
	env := map[string]string{}
	for _, name := range []string{"OPERATOR_SDK", "REGISTRY_TLS", "CLUSTER_CA", "IMAGES_RECORD", "OLM_IMAGES_RECORD"} {
		env[name] = os.Getenv(name)
		Expect(env[name]).NotTo(BeEmpty(), "%s is not set: run `make test-olm`", name)
	}
	images, err := cluster.ReadImages(env["IMAGES_RECORD"])
	Expect(err).NotTo(HaveOccurred())
	olmImages, err := cluster.ReadImages(env["OLM_IMAGES_RECORD"])
	Expect(err).NotTo(HaveOccurred())
	c := sdkCLI{binary: env["OPERATOR_SDK"], registry: env["REGISTRY_TLS"], caFile: env["CLUSTER_CA"],
		untarImage: images["busybox"], bundles: map[string]string{version: images["bundle"], first: olmImages["bundle-"+first]}}
	c.indexImage = c.overTLS(olmImages["empty-index"])
	for v, ref := range c.bundles {
		Expect(ref).NotTo(BeEmpty(), "no bundle image of %s in the records", v)
		c.bundles[v] = c.overTLS(ref)
	}
	return c
}

// overTLS is an image reference of the plain registry, as the HTTPS
// registry serves the same image.
func (c sdkCLI) overTLS(ref string) string {
	_, path, ok := strings.Cut(ref, "/")
	Expect(ok).To(BeTrue(), "%q has no registry host", ref)
	return c.registry + "/" + path
}

func (c sdkCLI) bundle(version string) string { return c.bundles[version] }

// run runs the CLI in a folder of its own (run bundle caches images in
// the working folder), trusting the cluster's CA, and returns what it
// printed on standard output.
func (c sdkCLI) run(ctx context.Context, args ...string) string {
	cmd := exec.CommandContext(ctx, c.binary, args...)
	cmd.Dir = GinkgoT().TempDir()
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+c.caFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	Expect(err).NotTo(HaveOccurred(), "operator-sdk %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return stdout.String()
}

// scorecardTests are the tests of the bundle's scorecard config.
func scorecardTests() []scapiv1alpha3.TestConfiguration {
	config := &scapiv1alpha3.Configuration{}
	Expect(testenv.ReadYAML(filepath.Join(testenv.ProjectRoot(), "bundle", "tests", "scorecard", "config.yaml"), config)).To(Succeed())
	var tests []scapiv1alpha3.TestConfiguration
	for _, stage := range config.Stages {
		tests = append(tests, stage.Tests...)
	}
	Expect(tests).NotTo(BeEmpty())
	return tests
}
