package apply

import (
	"context"
	"fmt"
	"net/http"

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
