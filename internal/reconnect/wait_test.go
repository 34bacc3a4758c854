package reconnect

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
)

// An API server that is not there yet: its address refuses connections
// until it starts serving, after a while.
func TestWaitForAPIServerWaitsUntilItAnswers(t *testing.T) {
	g := NewWithT(t)
	address := refusingAddress(t)

	const away = 2 * time.Second
	served := make(chan struct{})
	server := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	})}
	t.Cleanup(func() { _ = server.Close() })
	go func() {
		time.Sleep(away)
		listener, err := net.Listen("tcp", address)
		if err != nil {
			t.Errorf("listening again on %s: %v", address, err)
			return
		}
		close(served)
		_ = server.Serve(listener)
	}()

	start := time.Now()
	g.Expect(WaitForAPIServer(context.Background(), &rest.Config{Host: "http://" + address})).To(Succeed())
	g.Expect(served).To(BeClosed())
	g.Expect(time.Since(start)).To(BeNumerically("<", away+Period+time.Second))
}

// An API server that has just started answers 401 until its
// authenticators have caught up: those answers are waited out, for a while.
func TestWaitForAPIServerWaitsOutAnswersAtStartup(t *testing.T) {
	g := NewWithT(t)
	const refusals = 2
	var answers atomic.Int32
	server := serve(t, func(w http.ResponseWriter) {
		if answers.Add(1) <= refusals {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	})
	g.Expect(WaitForAPIServer(context.Background(), &rest.Config{Host: server})).To(Succeed())
	g.Expect(answers.Load()).To(BeEquivalentTo(refusals + 1))
}

// An API server that keeps refusing is an error, once StartupGrace is over
// (here, its context first).
func TestWaitForAPIServerReturnsARefusal(t *testing.T) {
	g := NewWithT(t)
	server := serve(t, func(w http.ResponseWriter) { http.Error(w, "Forbidden", http.StatusForbidden) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*Period)
	defer cancel()
	err := WaitForAPIServer(ctx, &rest.Config{Host: server})
	g.Expect(err).To(MatchError(ContainSubstring("waiting for the API server")))
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
}

// refusingAddress is an address of loopback where nothing listens.
func refusingAddress(t *testing.T) string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	if err := listener.Close(); err != nil {
		t.Fatal(err)
	}
	return address
}

// serve answers every request with answer, and returns its address.
func serve(t *testing.T, answer func(http.ResponseWriter)) string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		answer(w)
	})}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	return "http://" + listener.Addr().String()
}

func TestWaitForAPIServerStopsWithItsContext(t *testing.T) {
	g := NewWithT(t)
	address := refusingAddress(t)

	ctx, cancel := context.WithTimeout(context.Background(), 2*Period)
	defer cancel()
	err := WaitForAPIServer(ctx, &rest.Config{Host: "http://" + address})
	g.Expect(err).To(MatchError(ContainSubstring("connection refused")))
}
