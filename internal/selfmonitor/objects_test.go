package selfmonitor

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

var metricsService = &corev1.Service{ObjectMeta: metav1.ObjectMeta{
	Name: "seed-operator-controller-manager-metrics-service", Namespace: "operators", UID: "8d5c0a4e",
}}

// shippedManifests are the manifests config/prometheus has, as the operator
// embeds them.
func shippedManifests() ([][]byte, error) {
	var manifests [][]byte
	for _, file := range []string{"monitor.yaml", "rules.yaml"} {
		data, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), "config", "prometheus", file))
		if err != nil {
			return nil, err
		}
		manifests = append(manifests, data)
	}
	return manifests, nil
}

func TestObjectsOfTheShippedManifests(t *testing.T) {
	g := NewWithT(t)
	manifests, err := shippedManifests()
	g.Expect(err).NotTo(HaveOccurred())
	objects, err := Objects(metricsService, manifests...)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(objects).To(HaveLen(2))
	for i, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
		o := objects[i]
		g.Expect(o.GetAPIVersion()).To(Equal("monitoring.coreos.com/v1"))
		g.Expect(o.GetKind()).To(Equal(kind))
		g.Expect(o.GetName()).To(Equal(metricsService.Name), "named after the Service it scrapes")
		g.Expect(o.GetNamespace()).To(Equal(metricsService.Namespace))
		g.Expect(o.GetLabels()).To(And(
			HaveKeyWithValue("app.kubernetes.io/name", "seed-operator"),
			HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"),
		), "the manifest's, managed by the operator rather than kustomize")
		g.Expect(o.GetOwnerReferences()).To(ConsistOf(metav1.OwnerReference{
			APIVersion: "v1", Kind: "Service", Name: metricsService.Name, UID: metricsService.UID,
		}))
		g.Expect(o.Object).To(HaveKey("spec"))
		g.Expect(o.GetAnnotations()).To(BeEmpty())
	}
	endpoints, _, err := unstructured.NestedSlice(objects[0].Object, "spec", "endpoints")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(endpoints).To(HaveLen(1))
	g.Expect(endpoints[0]).To(HaveKeyWithValue("port", "https"))
}

func TestObjectsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, manifest, err string
	}{
		{"not YAML", "kind: [", "decoding a monitoring manifest"},
		{"another group", "apiVersion: apps/v1\nkind: Deployment\nspec: {}\n", "not of monitoring.coreos.com/v1"},
		{"another version", "apiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\nspec: {}\n", "not of monitoring.coreos.com/v1"},
		{"no spec", "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\n", "the ServiceMonitor manifest has no spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := Objects(metricsService, []byte(tc.manifest))
			g.Expect(err).To(MatchError(ContainSubstring(tc.err)))
		})
	}
}
