// Package bundle checks what the OLM validators do not: that the bundle in
// bundle/ describes the operator this repository builds. The validators
// themselves run on every published bundle in hack/catalog/operatorhub's
// test, as OperatorHub's pipeline runs them, and on bundle/ in make bundle.
//
// make test reads the committed bundle, so that it needs no operator-sdk;
// make verify, in CI, generates it again and fails on any difference.
package bundle

import (
	"bytes"
	"encoding/base64"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/manifests"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// loadBundle reads a bundle from its root, not manifests/, so that the
// validators see the channels of metadata/annotations.yaml too.
func loadBundle(t *testing.T, dir string) *manifests.Bundle {
	t.Helper()
	b, err := manifests.GetBundleFromDir(dir)
	NewWithT(t).Expect(err).NotTo(HaveOccurred(), "run make bundle")
	return b
}

func TestBundleDescribesThisOperator(t *testing.T) {
	g := NewWithT(t)
	b := loadBundle(t, filepath.Join(testenv.ProjectRoot(), "bundle"))
	csv := b.CSV

	// Level 2: test/olm upgrades every release in the catalog to this one
	// with its custom resources kept (docs/olm.md, Capability level).
	g.Expect(csv.Annotations).To(HaveKeyWithValue("capabilities", "Auto Pilot"))
	g.Expect(csv.Spec.InstallModes).To(HaveEach(HaveField("Supported", true)))
	g.Expect(csv.Spec.InstallModes).To(HaveLen(4))

	// Every image the operator may run, for mirroring: its own and the
	// operand images the CRDs default to.
	image := csv.Annotations["containerImage"]
	g.Expect(csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs).To(HaveLen(1))
	g.Expect(csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers).To(
		ContainElement(HaveField("Image", image)))
	g.Expect(csv.Spec.RelatedImages).To(ConsistOf(
		HaveField("Image", image),
		HaveField("Image", seedv1alpha1.DefaultWebServerImage),
		HaveField("Image", seedv1alpha1.DefaultEchoImage),
	))

	// The icon is config/manifests/icon.svg.
	icon, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), "config", "manifests", "icon.svg"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(csv.Spec.Icon).To(ConsistOf(And(
		HaveField("MediaType", "image/svg+xml"),
		HaveField("Data", base64.StdEncoding.EncodeToString(icon)),
	)))

	// Every kind is owned, with its resources, and a descriptor for every
	// field of its spec and status.
	g.Expect(csv.Spec.CustomResourceDefinitions.Owned).To(HaveLen(len(b.V1CRDs)))
	for _, owned := range csv.Spec.CustomResourceDefinitions.Owned {
		g.Expect(owned.Resources).NotTo(BeEmpty(), owned.Name)
		g.Expect(owned.Description).NotTo(BeEmpty(), owned.Name)
		i := slices.IndexFunc(b.V1CRDs, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return crd.Name == owned.Name })
		g.Expect(i).NotTo(BeNumerically("<", 0), "no CRD %s in the bundle", owned.Name)
		schema := b.V1CRDs[i].Spec.Versions[0].Schema.OpenAPIV3Schema
		// A descriptor of a field within a field (rollout.autoRollback) is
		// checked against the schema; the top level must have one each.
		var spec, status []string
		for _, d := range owned.SpecDescriptors {
			g.Expect(d.XDescriptors).NotTo(BeEmpty(), "%s spec.%s", owned.Name, d.Path)
			g.Expect(strings.TrimSpace(d.Description)).NotTo(BeEmpty(), "%s spec.%s", owned.Name, d.Path)
			g.Expect(inSchema(schema.Properties["spec"], d.Path)).To(BeTrue(), "%s spec.%s is not in the schema", owned.Name, d.Path)
			if !strings.Contains(d.Path, ".") {
				spec = append(spec, d.Path)
			}
		}
		for _, d := range owned.StatusDescriptors {
			g.Expect(d.XDescriptors).NotTo(BeEmpty(), "%s status.%s", owned.Name, d.Path)
			g.Expect(strings.TrimSpace(d.Description)).NotTo(BeEmpty(), "%s status.%s", owned.Name, d.Path)
			g.Expect(inSchema(schema.Properties["status"], d.Path)).To(BeTrue(), "%s status.%s is not in the schema", owned.Name, d.Path)
			if !strings.Contains(d.Path, ".") {
				status = append(status, d.Path)
			}
		}
		g.Expect(spec).To(ConsistOf(slices.Collect(maps.Keys(schema.Properties["spec"].Properties))), "%s spec descriptors", owned.Name)
		g.Expect(status).To(ConsistOf(slices.Collect(maps.Keys(schema.Properties["status"].Properties))), "%s status descriptors", owned.Name)
	}
}

// The bundle's CRDs are config/crd/bases', and its Deployment is the one
// config/manifests builds: a change to the API types or to the manager's
// manifests fails here until make bundle has run.
func TestBundleIsWhatConfigBuilds(t *testing.T) {
	g := NewWithT(t)
	b := loadBundle(t, filepath.Join(testenv.ProjectRoot(), "bundle"))

	files, err := filepath.Glob(filepath.Join(testenv.ProjectRoot(), "config", "crd", "bases", "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).NotTo(BeEmpty())
	g.Expect(b.V1CRDs).To(HaveLen(len(files)), "the bundle's CRDs are not config/crd/bases': run make bundle")
	for _, file := range files {
		data, err := os.ReadFile(file)
		g.Expect(err).NotTo(HaveOccurred())
		var want apiextensionsv1.CustomResourceDefinition
		g.Expect(yaml.Unmarshal(data, &want)).To(Succeed(), file)
		i := slices.IndexFunc(b.V1CRDs, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return crd.Name == want.Name })
		if g.Expect(i).NotTo(BeNumerically("<", 0), "no CRD %s in the bundle: run make bundle", want.Name) {
			g.Expect(b.V1CRDs[i].Spec).To(Equal(want.Spec), "the bundle's CRD %s is not %s: run make bundle", want.Name, file)
		}
	}

	kustomize := os.Getenv("KUSTOMIZE")
	if kustomize == "" {
		t.Fatal("KUSTOMIZE is not set: run the tests with make test, which builds it")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", filepath.Join(testenv.ProjectRoot(), "config", "manifests"))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	g.Expect(err).NotTo(HaveOccurred(), stderr.String())
	objs, err := testenv.DecodeObjects(out)
	g.Expect(err).NotTo(HaveOccurred())
	var deployments []*unstructured.Unstructured
	for _, obj := range objs {
		if obj.GetKind() == "Deployment" {
			deployments = append(deployments, obj)
		}
	}
	g.Expect(deployments).To(HaveLen(1), "config/manifests builds one Deployment")
	var want appsv1.Deployment
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(deployments[0].Object, &want)).To(Succeed())
	// operator-sdk's one change: WATCH_NAMESPACE is the OperatorGroup's
	// target namespaces, as OLM annotates the Deployment.
	for i := range want.Spec.Template.Spec.Containers {
		for j, env := range want.Spec.Template.Spec.Containers[i].Env {
			if env.Name == "WATCH_NAMESPACE" {
				want.Spec.Template.Spec.Containers[i].Env[j] = corev1.EnvVar{Name: env.Name, ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['olm.targetNamespaces']"},
				}}
			}
		}
	}
	specs := b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	g.Expect(specs).To(HaveLen(1))
	g.Expect(specs[0].Name).To(Equal(want.Name))
	g.Expect(specs[0].Spec).To(Equal(want.Spec), "the CSV's Deployment is not config/manifests': run make bundle")
}

// inSchema tells whether the dotted path names a property of schema.
func inSchema(schema apiextensionsv1.JSONSchemaProps, path string) bool {
	for field := range strings.SplitSeq(path, ".") {
		property, ok := schema.Properties[field]
		if !ok {
			return false
		}
		schema = property
	}
	return true
}

// The CSV asks for exactly the rules config/rbac grants the operator's
// ServiceAccount, and config/manifests' Role for its own ServiceMonitor, no
// more: the manager's, the leader election's and that one as permissions
// (config/manifests makes the manager's ClusterRole a Role), every other
// role bound to it as clusterPermissions.
func TestBundlePermissionsAreConfigRBAC(t *testing.T) {
	g := NewWithT(t)
	rbac := filepath.Join(testenv.ProjectRoot(), "config", "rbac")
	roles := map[string][]rbacv1.PolicyRule{}
	var bindings []rbacv1.RoleBinding // ClusterRoleBindings too: the fields read here are the same.
	var account string
	files, err := filepath.Glob(filepath.Join(rbac, "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	monitoring, err := filepath.Glob(filepath.Join(testenv.ProjectRoot(), "config", "manifests", "monitoring_*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(monitoring).NotTo(BeEmpty())
	files = append(files, monitoring...)
	for _, file := range files {
		data, err := os.ReadFile(file)
		g.Expect(err).NotTo(HaveOccurred())
		var object struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Rules []rbacv1.PolicyRule `json:"rules"`
		}
		g.Expect(yaml.Unmarshal(data, &object)).To(Succeed(), file)
		switch object.Kind {
		case "Role", "ClusterRole":
			roles[object.Kind+"/"+object.Metadata.Name] = object.Rules
		case "RoleBinding", "ClusterRoleBinding":
			var binding rbacv1.RoleBinding
			g.Expect(yaml.Unmarshal(data, &binding)).To(Succeed(), file)
			bindings = append(bindings, binding)
		case "ServiceAccount":
			account = object.Metadata.Name
		}
	}
	g.Expect(account).NotTo(BeEmpty(), "no ServiceAccount in config/rbac")

	prefixed := "seed-operator-" + account
	var permissions, clusterPermissions []rbacv1.PolicyRule
	for _, binding := range bindings {
		if !slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && (s.Name == account || s.Name == prefixed)
		}) {
			continue
		}
		rules, ok := roles[binding.RoleRef.Kind+"/"+binding.RoleRef.Name]
		g.Expect(ok).To(BeTrue(), "%s binds %s %s, which config/rbac does not have", binding.Name, binding.RoleRef.Kind, binding.RoleRef.Name)
		if binding.RoleRef.Kind == "Role" || binding.RoleRef.Name == "manager-role" {
			permissions = append(permissions, rules...)
		} else {
			clusterPermissions = append(clusterPermissions, rules...)
		}
	}
	g.Expect(permissions).NotTo(BeEmpty())
	g.Expect(clusterPermissions).NotTo(BeEmpty())

	strategy := loadBundle(t, filepath.Join(testenv.ProjectRoot(), "bundle")).CSV.Spec.InstallStrategy.StrategySpec
	g.Expect(strategy.Permissions).To(HaveExactElements(And(
		HaveField("ServiceAccountName", prefixed),
		HaveField("Rules", ConsistOf(permissions)),
	)))
	g.Expect(strategy.ClusterPermissions).To(HaveExactElements(And(
		HaveField("ServiceAccountName", prefixed),
		HaveField("Rules", ConsistOf(clusterPermissions)),
	)))
}

// OLM v0 fails the whole InstallPlan when a bundle object's kind is not
// served, so a ServiceMonitor or a PrometheusRule in the bundle would make
// it install only where prometheus-operator is: the operator keeps them
// itself (--metrics-service) instead.
func TestBundleNeedsNoOtherOperatorsAPI(t *testing.T) {
	g := NewWithT(t)
	b := loadBundle(t, filepath.Join(testenv.ProjectRoot(), "bundle"))
	g.Expect(b.Objects).NotTo(BeEmpty())
	for _, o := range b.Objects {
		g.Expect(o.GroupVersionKind().Group).To(BeElementOf("", "apiextensions.k8s.io", "rbac.authorization.k8s.io", "operators.coreos.com"),
			"%s %s", o.GetKind(), o.GetName())
	}
	args := b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Args
	g.Expect(args).To(ContainElement("--metrics-service=seed-operator-controller-manager-metrics-service"))
}
