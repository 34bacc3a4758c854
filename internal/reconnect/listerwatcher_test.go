package reconnect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

var pods = schema.GroupResource{Resource: "pods"}

// dialError is how client-go reports a request that could not connect.
func dialError(errno syscall.Errno) error {
	return &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/pods", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno),
	}}
}

func TestUnreachable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"connection refused", dialError(syscall.ECONNREFUSED), true},
		{"connection reset", dialError(syscall.ECONNRESET), true},
		{"stream closed", &url.Error{Op: "Get", URL: "https://127.0.0.1:6443", Err: io.ErrUnexpectedEOF}, true},
		{"HTTP/2 connection lost", errors.New("http2: client connection lost"), true},
		{"dial timeout", &net.OpError{Op: "dial", Err: timeoutError{}}, true},
		{"503: not ready", apierrors.NewServiceUnavailable("the server is starting"), true},
		{"504: timed out", apierrors.NewTimeoutError("etcd timed out", 1), true},
		{"500: server timeout", apierrors.NewServerTimeout(pods, "list", 1), true},
		{"500: etcd gone", apierrors.NewInternalError(errors.New("etcdserver: request timed out")), true},
		{"429: throttled", apierrors.NewTooManyRequests("slow down", 1), false},
		{"403: forbidden", apierrors.NewForbidden(pods, "", errors.New("RBAC")), false},
		{"410: expired", apierrors.NewResourceExpired("too old resource version"), false},
		{"404: no such resource", apierrors.NewNotFound(pods, ""), false},
		{"context canceled", context.Canceled, false},
		{"wrapped refusal", fmt.Errorf("listing: %w", dialError(syscall.ECONNREFUSED)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(Unreachable(tc.err)).To(Equal(tc.want))
		})
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// failing is a ListerWatcher whose lists and watches fail with each of
// errs in turn, then succeed; calls counts them.
func failing(errs ...error) (toolscache.ListerWatcher, *int) {
	calls := 0
	next := func() error {
		calls++
		if calls <= len(errs) {
			return errs[calls-1]
		}
		return nil
	}
	return &toolscache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			if err := next(); err != nil {
				return nil, err
			}
			return &corev1.PodList{}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			if err := next(); err != nil {
				return nil, err
			}
			return watch.NewEmptyWatch(), nil
		},
	}, &calls
}

const period = 10 * time.Millisecond

func TestListTriesAgainWhileUnreachable(t *testing.T) {
	g := NewWithT(t)
	lw, calls := failing(dialError(syscall.ECONNREFUSED), apierrors.NewServiceUnavailable("starting"), dialError(syscall.ECONNREFUSED))
	start := time.Now()
	list, err := retrying(lw, "*v1.Pod", period).ListWithContext(context.Background(), metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(list).To(BeAssignableToTypeOf(&corev1.PodList{}))
	g.Expect(*calls).To(Equal(4))
	g.Expect(time.Since(start)).To(BeNumerically(">=", 3*period), "tried again without waiting")
}

func TestWatchTriesAgainWhileUnreachable(t *testing.T) {
	g := NewWithT(t)
	lw, calls := failing(dialError(syscall.ECONNRESET), apierrors.NewInternalError(errors.New("etcdserver: leader changed")))
	w, err := retrying(lw, "*v1.Pod", period).WatchWithContext(context.Background(), metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(w).NotTo(BeNil())
	g.Expect(*calls).To(Equal(3))
}

// What the API server answered is the reflector's to handle, with its
// back-off: a 429 tried again here would not back off at all.
func TestAnswersAreNotTriedAgain(t *testing.T) {
	for _, answer := range []error{
		apierrors.NewTooManyRequests("slow down", 1),
		apierrors.NewForbidden(pods, "", errors.New("RBAC")),
		apierrors.NewResourceExpired("too old resource version"),
	} {
		t.Run(answer.Error(), func(t *testing.T) {
			g := NewWithT(t)
			lw, calls := failing(answer)
			_, err := retrying(lw, "*v1.Pod", period).WatchWithContext(context.Background(), metav1.ListOptions{})
			g.Expect(err).To(MatchError(answer))
			g.Expect(*calls).To(Equal(1))
		})
	}
}

func TestStopsTryingWhenTheContextEnds(t *testing.T) {
	g := NewWithT(t)
	refused := dialError(syscall.ECONNREFUSED)
	lw, calls := failing(refused, refused, refused, refused, refused, refused, refused, refused, refused, refused)
	ctx, cancel := context.WithTimeout(context.Background(), 3*period)
	defer cancel()
	_, err := retrying(lw, "*v1.Pod", period).ListWithContext(ctx, metav1.ListOptions{})
	g.Expect(err).To(MatchError(refused))
	g.Expect(err.Error()).To(MatchRegexp(`tried \d+ times`))
	g.Expect(*calls).To(BeNumerically("<", 10))
}

// The informers the manager's cache builds list through the wrapper: one
// whose first lists are refused syncs once the server answers, without the
// reflector's back-off (0.8 s, then 1.6 s, ...) between the tries.
func TestNewInformerSyncsOnceTheServerAnswers(t *testing.T) {
	g := NewWithT(t)
	refused := dialError(syscall.ECONNREFUSED)
	lw, calls := failing(refused, refused, refused, refused, refused)
	informer := NewInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	go informer.RunWithContext(ctx)
	g.Expect(toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced)).To(BeTrue())
	g.Expect(*calls).To(BeNumerically(">=", 6))
	g.Expect(time.Since(start)).To(BeNumerically("<", 5*Period+time.Second), "backed off between the tries")
}
