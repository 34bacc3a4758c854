//go:build olm

package olm

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

// metricsService is the bundle's Service in front of the manager's
// metrics, which the manager keeps a ServiceMonitor and a PrometheusRule
// for, named after it.
const metricsService = "seed-operator-controller-manager-metrics-service"

// servePrometheusOperatorAPI installs prometheus-operator's
// ServiceMonitor and PrometheusRule CRDs, from the module make monitoring
// builds, where they are not served yet, and removes them after the
// container's specs: the other specs install the operator without them.
func servePrometheusOperatorAPI(ctx context.Context) {
	dir := os.Getenv("PROMETHEUS_OPERATOR_CRDS")
	Expect(dir).NotTo(BeEmpty(), "PROMETHEUS_OPERATOR_CRDS must name prometheus-operator's CRDs: run `make test-olm`")
	for _, plural := range []string{"servicemonitors", "prometheusrules"} {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(testenv.ReadYAML(filepath.Join(dir, "monitoring.coreos.com_"+plural+".yaml"), crd)).To(Succeed())
		err := k8sClient.Create(ctx, crd)
		if apierrors.IsAlreadyExists(err) {
			continue // make monitoring-up's, left as it is.
		}
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(deleteAndWait, crd)
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd)).To(Succeed())
			g.Expect(crd.Status.Conditions).To(ContainElement(And(
				HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
		}).Should(Succeed())
	}
}

// expectSelfMonitored checks that the manager in namespace keeps the
// ServiceMonitor of its metrics Service and the PrometheusRule that
// config/prometheus has, both owned by the Service, so that they go with
// the operator.
func expectSelfMonitored(ctx context.Context, namespace string) {
	service := &corev1.Service{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: metricsService}, service)).To(Succeed())
	rules := &unstructured.Unstructured{}
	Expect(testenv.ReadYAML(filepath.Join(testenv.ProjectRoot(), "config", "prometheus", "rules.yaml"), &rules.Object)).To(Succeed())
	Eventually(ctx, func(g Gomega) {
		for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
			o := &unstructured.Unstructured{}
			o.SetAPIVersion("monitoring.coreos.com/v1")
			o.SetKind(kind)
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: metricsService}, o)).To(Succeed())
			g.Expect(o.GetOwnerReferences()).To(ConsistOf(HaveField("UID", service.UID)), kind)
			if kind == "PrometheusRule" {
				g.Expect(o.Object["spec"]).To(Equal(rules.Object["spec"]))
				continue
			}
			selector, _, err := unstructured.NestedStringMap(o.Object, "spec", "selector", "matchLabels")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(selector).NotTo(BeEmpty())
			for k, v := range selector {
				g.Expect(service.Labels).To(HaveKeyWithValue(k, v), "the ServiceMonitor selects the metrics Service")
			}
		}
	}).Should(Succeed())
}
