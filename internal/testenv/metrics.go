package testenv

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// reconcileErrorsMetric counts the reconciles that returned an error, by
// controller.
const reconcileErrorsMetric = "controller_runtime_reconcile_errors_total"

// Metrics are Prometheus metric families by name, at one moment.
type Metrics map[string]*dto.MetricFamily

// ParseMetrics reads the text format a /metrics endpoint serves.
func ParseMetrics(text string) (Metrics, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(strings.NewReader(text))
}

// Value is the sum of the named metric's series.
func (m Metrics) Value(name string) float64 {
	return m.Sum(name, nil)
}

// ReconcileErrors is how many reconciles have returned an error, over
// every controller.
func (m Metrics) ReconcileErrors() float64 {
	return m.Value(reconcileErrorsMetric)
}

// Sum is the sum of the named counter's or gauge's series whose labels
// have the given values.
func (m Metrics) Sum(name string, labels map[string]string) float64 {
	total := 0.0
	for _, series := range m.series(name, labels) {
		total += seriesValue(series)
	}
	return total
}

// Values are the values of the named counter's or gauge's series whose
// labels have the given values.
func (m Metrics) Values(name string, labels map[string]string) []float64 {
	matching := m.series(name, labels)
	values := make([]float64, 0, len(matching))
	for _, series := range matching {
		values = append(values, seriesValue(series))
	}
	return values
}

// By sums the named metric's series that have the given labels by the
// value of one more label.
func (m Metrics) By(name, label string, labels map[string]string) map[string]float64 {
	out := map[string]float64{}
	for _, series := range m.series(name, labels) {
		for _, pair := range series.GetLabel() {
			if pair.GetName() == label {
				out[pair.GetValue()] += seriesValue(series)
			}
		}
	}
	return out
}

func (m Metrics) series(name string, labels map[string]string) []*dto.Metric {
	family, ok := m[name]
	if !ok {
		return nil
	}
	var matching []*dto.Metric
	for _, series := range family.GetMetric() {
		found := 0
		for _, pair := range series.GetLabel() {
			if want, ok := labels[pair.GetName()]; ok && want == pair.GetValue() {
				found++
			}
		}
		if found == len(labels) {
			matching = append(matching, series)
		}
	}
	return matching
}

func seriesValue(series *dto.Metric) float64 {
	switch {
	case series.Counter != nil:
		return series.Counter.GetValue()
	case series.Gauge != nil:
		return series.Gauge.GetValue()
	default:
		return 0
	}
}

// ReconcileErrors is how many reconciles of the named controller in this
// process have returned an error, as its metrics count them.
func ReconcileErrors(controller string) (float64, error) {
	m, err := ProcessMetrics()
	return m.Sum(reconcileErrorsMetric, map[string]string{"controller": controller}), err
}

// Counted is the sum of the named counter's series in this process whose
// labels have the given values.
func Counted(name string, labels map[string]string) float64 {
	GinkgoHelper()
	m, err := ProcessMetrics()
	Expect(err).NotTo(HaveOccurred())
	return m.Sum(name, labels)
}

// ProcessMetrics are the metrics of the controllers and of the API clients
// in this process, the suite's among them, as the manager serves them.
func ProcessMetrics() (Metrics, error) {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return nil, fmt.Errorf("gathering the controllers' metrics: %w", err)
	}
	m := Metrics{}
	for _, family := range families {
		m[family.GetName()] = family
	}
	return m, nil
}

// MetricsReaderToken is a token of the ServiceAccount name in the
// operator's namespace, bound to the operator's metrics-reader ClusterRole
// by a ClusterRoleBinding of the same name; both are made unless they
// exist. The operator serves its metrics to such clients only.
func MetricsReaderToken(ctx context.Context, kube kubernetes.Interface, name string) (string, error) {
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: MetricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: OperatorNamespace}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("binding %s to %s: %w", name, MetricsReaderRole, err)
	}
	return ServiceAccountToken(ctx, kube, name)
}

// ServiceAccountToken is a token of the ServiceAccount name in the
// operator's namespace, which is made unless it exists.
func ServiceAccountToken(ctx context.Context, kube kubernetes.Interface, name string) (string, error) {
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: OperatorNamespace}}
	_, err := kube.CoreV1().ServiceAccounts(OperatorNamespace).Create(ctx, account, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating ServiceAccount %s: %w", name, err)
	}
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](4 * 3600)}}
	token, err := kube.CoreV1().ServiceAccounts(OperatorNamespace).CreateToken(ctx, name, request, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token of %s: %w", name, err)
	}
	return token.Status.Token, nil
}
