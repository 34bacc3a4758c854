//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"
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
