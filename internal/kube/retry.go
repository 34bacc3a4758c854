package kube

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// How long a controller waits before it reconciles again an object whose
// reconcile failed: twice as long after each failure in a row, from
// RetryBaseDelay up to RetryMaxDelay.
//
// controller-runtime caps the wait at 1000 s. When the API server is gone
// for half a minute, every object fails a dozen times and the last waits
// are as long as the outage and twice that: objects sit failed for a
// minute or more after the API server is back. Capped at 10 s, every
// object is tried again within 10 s of its return, and an outage costs
// each object about one error per 10 s. A failure that lasts (a refused
// object aside, which is not retried: IgnoreRefused) costs a request per
// object every 10 s, within the client's rate limit.
const (
	RetryBaseDelay = 5 * time.Millisecond
	RetryMaxDelay  = 10 * time.Second
)

// ControllerOptions are the options every controller of the operator is
// built with.
func ControllerOptions() controller.Options {
	return controller.Options{
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](RetryBaseDelay, RetryMaxDelay),
	}
}
