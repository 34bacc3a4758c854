package reconnect

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Period is how often a list or watch is tried again while the API server
// cannot be reached: a request a second from each informer, to a server
// that is not there or is starting, which answers its first ones at once.
const Period = time.Second

// Reconnected is what an informer logs when it reached the API server
// again after it could not.
const Reconnected = "Reached the API server again"

var log = logf.Log.WithName("reconnect")

// NewInformer builds the informers of the manager's cache
// (cache.Options.NewInformer): client-go's, with a ListerWatcher that
// tries again every Period while the API server cannot be reached.
func NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return toolscache.NewSharedIndexInformer(retrying(lw, reflect.TypeOf(obj).String(), Period), obj, resync, indexers)
}

// listerWatcher wraps a ListerWatcher of objects of the named type so that
// a list or a watch that cannot reach the API server is tried again every
// period until it can, or its context ends.
type listerWatcher struct {
	lw       toolscache.ListerWatcherWithContext
	typeName string
	period   time.Duration
}

func retrying(lw toolscache.ListerWatcher, typeName string, period time.Duration) *listerWatcher {
	return &listerWatcher{lw: toolscache.ToListerWatcherWithContext(lw), typeName: typeName, period: period}
}

func (r *listerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	var list runtime.Object
	err := r.retry(ctx, "list", func() (err error) {
		list, err = r.lw.ListWithContext(ctx, opts)
		return err
	})
	return list, err
}

func (r *listerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	var w watch.Interface
	err := r.retry(ctx, "watch", func() (err error) {
		w, err = r.lw.WatchWithContext(ctx, opts)
		return err
	})
	return w, err
}

// List and Watch complete toolscache.ListerWatcher, which informers take;
// their reflectors call the context's variants.
func (r *listerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return r.ListWithContext(context.Background(), opts)
}

func (r *listerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return r.WatchWithContext(context.Background(), opts)
}

func (r *listerWatcher) retry(ctx context.Context, verb string, f func() error) error {
	return retry(ctx, r.period, log.WithValues("type", r.typeName, "verb", verb), f)
}

// retry calls f until it succeeds, fails with an error that is not
// Unreachable, or ctx ends, every period, and says in log when the API
// server could not be reached and when it was reached again.
func retry(ctx context.Context, period time.Duration, log logr.Logger, f func() error) error {
	var (
		start time.Time
		tries int
	)
	for {
		err := f()
		tries++
		if !Unreachable(err) {
			if tries > 1 {
				log.Info(Reconnected, "after", time.Since(start).Round(time.Millisecond).String(), "tries", tries)
			}
			return err
		}
		if tries == 1 {
			start = time.Now()
			log.Info("The API server cannot be reached; trying again", "every", period.String(), "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (tried %d times)", err, tries)
		case <-time.After(period):
		}
	}
}

// Unreachable tells whether err says that the API server could not be
// reached or could not serve a request for now: the connection refused,
// reset, timed out or closed, or the server answering that it is
// unavailable (503), that it or its storage timed out (504, or 500 with
// ServerTimeout) or failed inside (500), as it does while etcd is gone.
// Answers that say something about the request (a 429, a 403, a 410, a
// 404) are not.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return apierrors.IsServiceUnavailable(err) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) ||
			apierrors.IsInternalError(err)
	}
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsTimeout(err) ||
		utilnet.IsProbableEOF(err) || utilnet.IsHTTP2ConnectionLost(err)
}
