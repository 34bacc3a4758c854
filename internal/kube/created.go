package kube

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// responseStatusKey marks a request's context with the place where the
// HTTP status of its response is to be stored.
type responseStatusKey struct{}

// withResponseStatus is ctx with a place for the HTTP status of the
// response to the request made with it.
func withResponseStatus(ctx context.Context) (context.Context, *int) {
	status := new(int)
	return context.WithValue(ctx, responseStatusKey{}, status), status
}

// statusRecorder stores the HTTP status of each response whose request's
// context asks for it. It tells an apply that created its object (201
// Created) from one that found it (200 OK) without reading the object
// first: the cache cannot say, since it may not have seen an object made
// a moment ago.
type statusRecorder struct {
	next http.RoundTripper
}

func (s statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(req)
	if status, ok := req.Context().Value(responseStatusKey{}).(*int); ok && resp != nil {
		*status = resp.StatusCode
	}
	return resp, err
}

// newStatusRecordingClient is a client of the manager's cluster, scheme and
// REST mapping whose requests record their response's status.
func newStatusRecordingClient(mgr manager.Manager) (client.Client, error) {
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper { return statusRecorder{next: next} })
	c, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("creating the client that applies: %w", err)
	}
	return c, nil
}

// cacheLagAllowance is how long after creating an object the operator
// allows its cache to miss it.
const cacheLagAllowance = time.Minute

// creations remembers the objects this process created and its cache has
// not seen yet. An object that the cache misses and an apply finds (200 OK)
// is either one created so recently that the cache has not seen it yet,
// which the apply left as it was, or one that left the cache (someone
// removed its managed-by label), which the apply put back: only the second
// is a change to report.
type creations struct {
	mu sync.Mutex
	at map[string]time.Time
}

func creationKey(kind string, key client.ObjectKey) string { return kind + "/" + key.String() }

func (c *creations) add(kind string, key client.ObjectKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for k, at := range c.at {
		if now.Sub(at) > cacheLagAllowance {
			delete(c.at, k)
		}
	}
	if c.at == nil {
		c.at = map[string]time.Time{}
	}
	c.at[creationKey(kind, key)] = now
}

// seen forgets an object the cache has. It runs on every apply of a cached
// object, where there is mostly nothing to forget.
func (c *creations) seen(kind string, key client.ObjectKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.at) == 0 {
		return
	}
	delete(c.at, creationKey(kind, key))
	// A map keeps the room a burst of creations took: drop it.
	if len(c.at) == 0 {
		c.at = nil
	}
}

func (c *creations) recent(kind string, key client.ObjectKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.at[creationKey(kind, key)]
	return ok && time.Since(at) <= cacheLagAllowance
}
