//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// metricsClient reaches the replicas' metrics endpoints, which serve a
// self-signed certificate on loopback.
var metricsClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // a self-signed certificate on loopback
}}

// scrapeMetrics gets a replica's /metrics with token as its bearer token,
// and returns the status code and the body.
func scrapeMetrics(ctx context.Context, r *replica, token string) (int, string, error) {
	url := fmt.Sprintf("https://127.0.0.1:%d/metrics", r.probePort+1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := metricsClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", fmt.Errorf("reading %s: %w", url, err)
	}
	return resp.StatusCode, string(body), nil
}

// metricsScraper reads a replica's metrics, as a ServiceAccount bound to
// the metrics-reader ClusterRole: the metrics are served to authorized
// clients only.
func metricsScraper(ctx context.Context) func(context.Context, *replica) testenv.Metrics {
	const scraper = "seed-chaos-scraper"
	token, err := testenv.MetricsReaderToken(ctx, clientset, scraper)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(k8sClient.Delete, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: scraper, Namespace: operatorNamespace}})
	DeferCleanup(k8sClient.Delete, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: scraper}})
	return func(ctx context.Context, r *replica) testenv.Metrics {
		var metrics testenv.Metrics
		Eventually(ctx, func(g Gomega) {
			status, body, err := scrapeMetrics(ctx, r, token)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(status).To(Equal(http.StatusOK), "%s", body)
			metrics, err = testenv.ParseMetrics(body)
			g.Expect(err).NotTo(HaveOccurred())
		}).Should(Succeed())
		return metrics
	}
}

// expectMetricsOf checks that the leader serves each resource's state,
// Ready as it is now, and the standby none; and that every replica serves
// the series the alerts tell the operator by (docs/monitoring.md).
func expectMetricsOf(ctx context.Context, resources []kube.Object) {
	scrape := metricsScraper(ctx)
	lead := leader(ctx)
	Eventually(ctx, func(g Gomega) {
		m := scrape(ctx, lead)
		for _, obj := range resources {
			gvk, err := apiutil.GVKForObject(obj, k8sClient.Scheme())
			g.Expect(err).NotTo(HaveOccurred())
			kind := gvk.Kind
			g.Expect(m.Values("seed_resource_ready", map[string]string{"kind": kind, "namespace": obj.GetNamespace(), "name": obj.GetName()})).
				To(Equal([]float64{1}), "%s %s", kind, obj.GetName())
		}
		g.Expect(m.Values("leader_election_master_status", map[string]string{"name": kube.LeaderElectionID})).To(Equal([]float64{1}))
	}).Should(Succeed())
	for _, r := range replicas {
		if r.isStopped() {
			continue
		}
		m := scrape(ctx, r)
		Expect(m.Values("go_build_info", map[string]string{"path": "github.com/seed-operators/seed-operator"})).To(HaveLen(1), r.name)
		if r != lead {
			Expect(m.Values("seed_resource_ready", nil)).To(BeEmpty(), "a standby serves no resource's state")
		}
	}
}
