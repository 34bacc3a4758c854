// Package chart checks the Helm chart in dist/chart with the helm binary the
// Makefile builds (HELM): it lints, renders what config/ deploys, renders
// what each value asks for, and refuses wrong values.
package chart

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

const (
	root      = "../.."
	release   = "seed-operator"
	namespace = "seed-operator-system"
	manager   = "seed-operator-controller-manager"
	// instanceLabel is the one selector label config/ has no use for: it
	// tells two releases apart.
	instanceLabel = "app.kubernetes.io/instance"
)

var chart = filepath.Join(root, "dist", "chart")

// run runs a tool the Makefile built, named by an environment variable.
func run(t *testing.T, tool string, args ...string) (string, error) {
	t.Helper()
	binary := os.Getenv(tool)
	if binary == "" {
		t.Fatalf("%s is not set: run the tests with make test, which builds it", tool)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(binary), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// render is what `helm install` would create in the cluster, with the
// values of sets (--set flags), tests and CRDs included.
func render(t *testing.T, sets ...string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	args := append([]string{"template", release, chart, "--namespace", namespace, "--include-crds"}, setFlags(sets)...)
	out, err := run(t, "HELM", args...)
	if err != nil {
		return nil, err
	}
	return decode(t, out), nil
}

// setFlags are the --set flags of values like "ha=true".
func setFlags(sets []string) []string {
	flags := make([]string, 0, 2*len(sets))
	for _, s := range sets {
		flags = append(flags, "--set", s)
	}
	return flags
}

func decode(t *testing.T, manifests string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := testenv.DecodeObjects([]byte(manifests))
	if err != nil {
		t.Fatalf("decoding the rendered manifests: %v", err)
	}
	return objs
}

func key(obj *unstructured.Unstructured) string {
	return strings.Trim(strings.Join([]string{obj.GetKind(), obj.GetNamespace(), obj.GetName()}, "/"), "/")
}

func byKey(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	m := map[string]*unstructured.Unstructured{}
	for _, obj := range objs {
		m[key(obj)] = obj
	}
	return m
}

func isTest(obj *unstructured.Unstructured) bool {
	return obj.GetAnnotations()["helm.sh/hook"] == "test"
}

// The chart is the operator's release: one version for both.
func TestChartVersionIsTheOperators(t *testing.T) {
	g := NewWithT(t)
	version := os.Getenv("VERSION")
	g.Expect(version).NotTo(BeEmpty(), "VERSION is not set: run the tests with make test")
	var meta struct{ Version, AppVersion string }
	data, err := os.ReadFile(filepath.Join(chart, "Chart.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, &meta)).To(Succeed())
	g.Expect(meta.Version).To(Equal(version), "Chart.yaml's version")
	g.Expect(meta.AppVersion).To(Equal(version), "Chart.yaml's appVersion")
}

func TestLintsStrictly(t *testing.T) {
	for _, sets := range [][]string{nil, {"ha=true"}, {"watchNamespaces={team-a,team-b}"}, {"metrics.enabled=false"}} {
		t.Run(strings.Join(sets, ","), func(t *testing.T) {
			out, err := run(t, "HELM", append([]string{"lint", "--strict", chart}, setFlags(sets)...)...)
			NewWithT(t).Expect(err).NotTo(HaveOccurred(), out)
			NewWithT(t).Expect(out).To(ContainSubstring("1 chart(s) linted, 0 chart(s) failed"))
		})
	}
}

// With ha, the chart makes what config/default makes (the manifests of
// `make deploy` and of the OLM bundle), object for object: the CRDs, the
// RBAC, the manager's Deployment and the metrics Service. Only the
// namespace (helm install --create-namespace) and the PodDisruptionBudget
// differ.
func TestRendersWhatConfigDeploys(t *testing.T) {
	g := NewWithT(t)
	out, err := run(t, "KUSTOMIZE", "build", filepath.Join(root, "config", "default"))
	g.Expect(err).NotTo(HaveOccurred())
	rendered, err := render(t, "ha=true")
	g.Expect(err).NotTo(HaveOccurred())
	fromChart := byKey(rendered)

	for _, want := range decode(t, out) {
		if want.GetKind() == "Namespace" {
			continue
		}
		got, ok := fromChart[key(want)]
		if !g.Expect(ok).To(BeTrue(), "the chart has no %s", key(want)) {
			continue
		}
		delete(fromChart, key(want))
		g.Expect(comparable(got)).To(Equal(comparable(want)), "%s differs from config/'s", key(want))
	}
	var extra []string
	for k, obj := range fromChart {
		if !isTest(obj) {
			extra = append(extra, k)
		}
	}
	g.Expect(extra).To(ConsistOf("PodDisruptionBudget/" + namespace + "/" + manager))
}

// comparable is what must be equal in an object of the chart and of
// config/: all but the labels and annotations that say who installed it,
// and the release's own selector label.
func comparable(obj *unstructured.Unstructured) map[string]any {
	c := obj.DeepCopy().Object
	labels := map[string]any{}
	for k, v := range obj.GetLabels() {
		if strings.HasPrefix(k, "rbac.authorization.k8s.io/") {
			labels[k] = v
		}
	}
	metadata := map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace(), "labels": labels}
	if obj.GetKind() == "CustomResourceDefinition" {
		metadata = c["metadata"].(map[string]any)
	}
	c["metadata"] = metadata
	dropKey(c, instanceLabel)
	return c
}

// dropKey removes key from every map in v.
func dropKey(v any, key string) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, key)
		for _, e := range v {
			dropKey(e, key)
		}
	case []any:
		for _, e := range v {
			dropKey(e, key)
		}
	}
}

// rendered is what one set of values renders, with typed access to the
// objects the tests look at.
type rendered struct {
	g    Gomega
	objs []*unstructured.Unstructured
}

func (r rendered) kinds() []string {
	var kinds []string
	for _, obj := range r.objs {
		if !isTest(obj) {
			kinds = append(kinds, obj.GetKind())
		}
	}
	return kinds
}

func (r rendered) find(kind, name string) *unstructured.Unstructured {
	for _, obj := range r.objs {
		if obj.GetKind() == kind && obj.GetName() == name {
			return obj
		}
	}
	return nil
}

// into decodes the object kind/name into a typed object.
func (r rendered) into(kind, name string, typed any) {
	obj := r.find(kind, name)
	r.g.Expect(obj).NotTo(BeNil(), "no %s %s", kind, name)
	r.g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed)).To(Succeed())
}

func (r rendered) deployment() *appsv1.Deployment {
	d := &appsv1.Deployment{}
	r.into("Deployment", manager, d)
	return d
}

func (r rendered) container() corev1.Container {
	return r.deployment().Spec.Template.Spec.Containers[0]
}

func (r rendered) env(name string) string {
	for _, e := range r.container().Env {
		if e.Name == name {
			return e.Value
		}
	}
	r.g.Expect(name).To(BeEmpty(), "no variable %s", name)
	return ""
}

// rules are the rules of config/rbac's role in file: role.yaml, the
// manager's, or cluster_role.yaml, its objects of no namespace.
func rules(g Gomega, file string) []rbacv1.PolicyRule {
	role := &rbacv1.ClusterRole{}
	data, err := os.ReadFile(filepath.Join(root, "config", "rbac", file))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, role)).To(Succeed())
	return role.Rules
}

// expectClusterRole checks the ClusterRole of the objects of no namespace,
// and its binding to the manager: cluster-wide, whatever it watches.
func expectClusterRole(r rendered) {
	role := &rbacv1.ClusterRole{}
	r.into("ClusterRole", "seed-operator-manager-cluster-role", role)
	r.g.Expect(role.Rules).To(Equal(rules(r.g, "cluster_role.yaml")))
	binding := &rbacv1.ClusterRoleBinding{}
	r.into("ClusterRoleBinding", "seed-operator-manager-cluster-rolebinding", binding)
	r.g.Expect(binding.RoleRef.Name).To(Equal(role.Name))
	r.g.Expect(binding.Subjects).To(ConsistOf(HaveField("Name", "seed-operator-controller-manager")))
}

// Each value renders what its documentation says. The object counts are
// logged, tests aside.
func TestRendersWhatValuesAsk(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		sets  []string
		check func(r rendered)
	}{{
		name: "defaults",
		check: func(r rendered) {
			d := r.deployment()
			r.g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)))
			r.g.Expect(d.Spec.Template.Spec.Affinity).To(BeNil())
			r.g.Expect(r.kinds()).NotTo(ContainElement("PodDisruptionBudget"))
			c := r.container()
			r.g.Expect(c.Image).To(Equal("quay.io/seed-operators/seed-operator:v" + os.Getenv("VERSION")))
			r.g.Expect(c.Args).To(ContainElements("--leader-elect", "--metrics-bind-address=:8443",
				"--leader-elect-lease-duration=14s", "--leader-elect-renew-deadline=8s", "--leader-elect-retry-period=1s"))
			r.g.Expect(r.env("WATCH_NAMESPACE")).To(BeEmpty(), "every namespace")
			// The replica's identity on the Lease, which a restart keeps.
			r.g.Expect(c.Env).To(ContainElements(
				HaveField("ValueFrom.FieldRef.FieldPath", "metadata.name"),
				HaveField("ValueFrom.FieldRef.FieldPath", "metadata.namespace")))
			pod := d.Spec.Template.Spec
			r.g.Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
			r.g.Expect(pod.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
			r.g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
			r.g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
			r.g.Expect(c.SecurityContext.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
			role := &rbacv1.ClusterRole{}
			r.into("ClusterRole", "seed-operator-manager-role", role)
			r.g.Expect(role.Rules).To(Equal(rules(r.g, "role.yaml")))
			expectClusterRole(r)
			r.g.Expect(r.find("Service", "seed-operator-controller-manager-metrics-service")).NotTo(BeNil())
			r.g.Expect(r.find("Pod", "seed-operator-test-ready")).NotTo(BeNil(), "helm test's pod")
			for _, kind := range []string{"ServiceMonitor", "PrometheusRule", "ConfigMap"} {
				r.g.Expect(r.kinds()).NotTo(ContainElement(kind), "prometheus-operator's kinds and the dashboard only when asked for")
			}
		},
	}, {
		name: "ha",
		sets: []string{"ha=true"},
		check: func(r rendered) {
			d := r.deployment()
			r.g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
			terms := d.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			r.g.Expect(terms).To(HaveLen(1))
			r.g.Expect(terms[0].PodAffinityTerm.TopologyKey).To(Equal("kubernetes.io/hostname"))
			r.g.Expect(terms[0].PodAffinityTerm.LabelSelector.MatchLabels).To(Equal(d.Spec.Selector.MatchLabels))
			pdb := &policyv1.PodDisruptionBudget{}
			r.into("PodDisruptionBudget", manager, pdb)
			r.g.Expect(pdb.Spec.MinAvailable.IntValue()).To(Equal(1))
			r.g.Expect(pdb.Spec.Selector.MatchLabels).To(Equal(d.Spec.Selector.MatchLabels))
		},
	}, {
		name: "ha with more replicas",
		sets: []string{"ha=true", "replicas=3"},
		check: func(r rendered) {
			r.g.Expect(r.deployment().Spec.Replicas).To(HaveValue(BeEquivalentTo(3)))
		},
	}, {
		name: "watchNamespaces",
		sets: []string{"watchNamespaces={team-a,team-b}"},
		check: func(r rendered) {
			r.g.Expect(r.env("WATCH_NAMESPACE")).To(Equal("team-a,team-b"))
			r.g.Expect(r.find("ClusterRole", "seed-operator-manager-role")).To(BeNil(), "no access outside the watched namespaces")
			r.g.Expect(r.find("ClusterRoleBinding", "seed-operator-manager-rolebinding")).To(BeNil())
			expectClusterRole(r)
			for _, ns := range []string{"team-a", "team-b"} {
				var role *rbacv1.Role
				var binding *rbacv1.RoleBinding
				for _, obj := range r.objs {
					if obj.GetNamespace() != ns {
						continue
					}
					switch obj.GetKind() {
					case "Role":
						role = &rbacv1.Role{}
						r.g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role)).To(Succeed())
					case "RoleBinding":
						binding = &rbacv1.RoleBinding{}
						r.g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, binding)).To(Succeed())
					}
				}
				r.g.Expect(role).NotTo(BeNil(), "a Role in %s", ns)
				r.g.Expect(role.Rules).To(Equal(rules(r.g, "role.yaml")))
				r.g.Expect(binding).NotTo(BeNil(), "a RoleBinding in %s", ns)
				r.g.Expect(binding.RoleRef.Name).To(Equal(role.Name))
				r.g.Expect(binding.Subjects).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: manager, Namespace: namespace}))
			}
		},
	}, {
		name: "metrics off",
		sets: []string{"metrics.enabled=false"},
		check: func(r rendered) {
			c := r.container()
			r.g.Expect(c.Args).NotTo(ContainElement(HavePrefix("--metrics-bind-address")))
			r.g.Expect(c.Ports).To(ConsistOf(HaveField("Name", "health")))
			r.g.Expect(r.kinds()).NotTo(ContainElement("Service"))
			r.g.Expect(r.find("ClusterRole", "seed-operator-metrics-auth-role")).To(BeNil())
		},
	}, {
		name: "ServiceMonitor",
		sets: []string{"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.interval=1m"},
		check: func(r rendered) {
			monitor := r.find("ServiceMonitor", "seed-operator-controller-manager-metrics-monitor")
			r.g.Expect(monitor).NotTo(BeNil())
			selector, _, err := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
			r.g.Expect(err).NotTo(HaveOccurred())
			r.g.Expect(selector).To(Equal(r.deployment().Spec.Selector.MatchLabels))
			// The endpoint config/prometheus scrapes, at the interval asked.
			var shipped unstructured.Unstructured
			data, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "monitor.yaml"))
			r.g.Expect(err).NotTo(HaveOccurred())
			r.g.Expect(yaml.Unmarshal(data, &shipped.Object)).To(Succeed())
			want, _, _ := unstructured.NestedSlice(shipped.Object, "spec", "endpoints")
			r.g.Expect(want).To(HaveLen(1))
			want[0].(map[string]any)["interval"] = "1m"
			endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
			r.g.Expect(endpoints).To(Equal(want))
		},
	}, {
		name: "PrometheusRule and dashboard",
		sets: []string{"metrics.prometheusRule.enabled=true", "metrics.prometheusRule.labels.prometheus=main",
			"dashboards.enabled=true", "dashboards.labels.grafana_dashboard=seed"},
		check: func(r rendered) {
			rule := r.find("PrometheusRule", "seed-operator-rules")
			r.g.Expect(rule).NotTo(BeNil())
			r.g.Expect(rule.GetLabels()).To(HaveKeyWithValue("prometheus", "main"))
			var source unstructured.Unstructured
			data, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "rules.yaml"))
			r.g.Expect(err).NotTo(HaveOccurred())
			r.g.Expect(yaml.Unmarshal(data, &source.Object)).To(Succeed())
			r.g.Expect(rule.Object["spec"]).To(Equal(source.Object["spec"]), "the rules config/prometheus has")

			dashboard := r.find("ConfigMap", "seed-operator-dashboard")
			r.g.Expect(dashboard).NotTo(BeNil())
			r.g.Expect(dashboard.GetLabels()).To(HaveKeyWithValue("grafana_dashboard", "seed"))
			json, _, err := unstructured.NestedString(dashboard.Object, "data", "seed-operator-dashboard.json")
			r.g.Expect(err).NotTo(HaveOccurred())
			want, err := os.ReadFile(filepath.Join(root, "config", "grafana", "seed-operator-dashboard.json"))
			r.g.Expect(err).NotTo(HaveOccurred())
			r.g.Expect(json).To(Equal(strings.TrimSuffix(string(want), "\n")), "the dashboard config/grafana has")
		},
	}, {
		name: "image by digest, leader election timings",
		sets: []string{"image.digest=" + digest, "image.pullPolicy=Always",
			"leaderElection.leaseDurationSeconds=40", "leaderElection.renewDeadlineSeconds=20", "leaderElection.retryPeriodSeconds=5"},
		check: func(r rendered) {
			c := r.container()
			r.g.Expect(c.Image).To(Equal("quay.io/seed-operators/seed-operator@" + digest))
			r.g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullAlways))
			r.g.Expect(c.Args).To(ContainElements(
				"--leader-elect-lease-duration=40s", "--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=5s"))
		},
	}, {
		name: "placement, labels and annotations",
		sets: []string{"labels.team=web", "annotations.owner=platform", "podLabels.tier=control",
			"podAnnotations.scrape=no", "nodeSelector.pool=system", "tolerations[0].key=dedicated",
			"tolerations[0].operator=Exists", "priorityClassName=system-cluster-critical", "ha=true",
			"affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool",
			"affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists",
		},
		check: func(r rendered) {
			for _, obj := range r.objs {
				if obj.GetKind() == "CustomResourceDefinition" {
					continue // crds/ are not templates: Helm applies them as they are.
				}
				r.g.Expect(obj.GetLabels()).To(HaveKeyWithValue("team", "web"), key(obj))
				r.g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue("owner", "platform"), key(obj))
				if isTest(obj) {
					r.g.Expect(obj.GetAnnotations()).To(HaveKey("helm.sh/hook-delete-policy"), key(obj))
				}
			}
			pod := r.deployment().Spec.Template
			r.g.Expect(pod.Labels).To(HaveKeyWithValue("tier", "control"))
			r.g.Expect(pod.Annotations).To(HaveKeyWithValue("scrape", "no"))
			r.g.Expect(pod.Spec.NodeSelector).To(Equal(map[string]string{"pool": "system"}))
			r.g.Expect(pod.Spec.Tolerations).To(ConsistOf(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists}))
			r.g.Expect(pod.Spec.PriorityClassName).To(Equal("system-cluster-critical"))
			r.g.Expect(pod.Spec.Affinity.PodAntiAffinity).To(BeNil(), "affinity replaces ha's")
			r.g.Expect(pod.Spec.Affinity.NodeAffinity).NotTo(BeNil())
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			objs, err := render(t, tt.sets...)
			g.Expect(err).NotTo(HaveOccurred())
			r := rendered{g: g, objs: objs}
			t.Logf("%s: %d objects, helm test's aside (%d of them CRDs)", tt.name, len(r.kinds()), count(r.kinds(), "CustomResourceDefinition"))
			tt.check(r)
		})
	}
}

func count(kinds []string, kind string) int {
	n := 0
	for _, k := range kinds {
		if k == kind {
			n++
		}
	}
	return n
}

// A wrong value is refused before anything reaches the cluster, by the
// values' schema or by the chart, with a message that names it.
func TestRefusesWrongValues(t *testing.T) {
	tests := []struct {
		set     string
		message []string
	}{
		{"replicas=0", []string{"/replicas", "minimum"}},
		{"replica=2", []string{"additional properties 'replica' not allowed"}},
		{"ha=yes", []string{"/ha", "want boolean"}},
		{"image.pullPolicy=Sometimes", []string{"/image/pullPolicy", "Always", "IfNotPresent", "Never"}},
		{"image.digest=sha256:abc", []string{"/image/digest", "does not match pattern"}},
		{"watchNamespaces={Team_A}", []string{"/watchNamespaces/0", "does not match pattern"}},
		{"resources.limits.memory=lots", []string{"/resources/limits/memory", "does not match pattern"}},
		{"leaderElection.retryPeriodSeconds=0", []string{"/leaderElection/retryPeriodSeconds", "minimum"}},
		{"leaderElection.renewDeadlineSeconds=9", []string{"leaderElection.leaseDurationSeconds (14) must be more than leaderElection.retryPeriodSeconds plus 1.5 times leaderElection.renewDeadlineSeconds (14.5)"}},
		{"leaderElection.retryPeriodSeconds=8", []string{"leaderElection.retryPeriodSeconds (8) must be less than leaderElection.renewDeadlineSeconds (8)"}},
		{"metrics.enabled=false,metrics.serviceMonitor.enabled=true", []string{"metrics.serviceMonitor.enabled needs metrics.enabled"}},
		{"metrics.enabled=false,metrics.prometheusRule.enabled=true", []string{"metrics.prometheusRule.enabled needs metrics.enabled"}},
		{"dashboards.enable=true", []string{"additional properties 'enable' not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			g := NewWithT(t)
			_, err := render(t, tt.set)
			g.Expect(err).To(HaveOccurred())
			for _, m := range tt.message {
				g.Expect(err.Error()).To(ContainSubstring(m))
			}
		})
	}
}
