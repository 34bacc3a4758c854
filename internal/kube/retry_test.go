package kube

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestControllerOptionsRetryDelays(t *testing.T) {
	g := NewWithT(t)
	limiter := ControllerOptions().RateLimiter
	web := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: "web"}}
	other := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: "other"}}

	// A 30 s outage: each failure in a row waits twice the last, until
	// the waits reach the cap.
	var delays []time.Duration
	for elapsed := time.Duration(0); elapsed < 30*time.Second; elapsed += delays[len(delays)-1] {
		delays = append(delays, limiter.When(web))
	}
	g.Expect(delays[0]).To(Equal(RetryBaseDelay))
	g.Expect(delays[1]).To(Equal(2 * RetryBaseDelay))
	g.Expect(delays[len(delays)-1]).To(Equal(RetryMaxDelay), "the wait after the outage's last failure")
	g.Expect(delays).To(HaveLen(13), "failures of one object in a 30 s outage: %v", delays)
	g.Expect(limiter.NumRequeues(web)).To(Equal(13))

	// Each object waits by its own failures.
	g.Expect(limiter.When(other)).To(Equal(RetryBaseDelay))

	// A reconcile that succeeds starts the object's waits over.
	limiter.Forget(web)
	g.Expect(limiter.When(web)).To(Equal(RetryBaseDelay))
}
