package metricsauth

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

// TestReviewer asks envtest's kube-apiserver, as the operator, with the
// roles config/default gives it, about tokens of real ServiceAccounts.
func TestReviewer(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	env, err := testenv.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { g.Expect(env.Stop()).To(Succeed()) })
	g.Expect(env.InstallMetricsRoles(ctx)).To(Succeed())
	admin, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	readerToken, err := testenv.MetricsReaderToken(ctx, admin, "reader")
	g.Expect(err).NotTo(HaveOccurred())
	nosyToken, err := testenv.ServiceAccountToken(ctx, admin, "nosy")
	g.Expect(err).NotTo(HaveOccurred())

	clock := clocktesting.NewFakeClock(time.Now())
	requests := &requestCounter{}
	r := reviewerFor(t, env.Manager.GetConfig(), requests, clock)
	reader := authenticationv1.UserInfo{}

	t.Run("accepts a ServiceAccount's token, names its user, and asks again after a minute", func(t *testing.T) {
		g := NewWithT(t)
		status, err := r.authenticate(ctx, readerToken)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(status.Authenticated).To(BeTrue(), status.Error)
		g.Expect(status.User.Username).To(Equal("system:serviceaccount:" + testenv.OperatorNamespace + ":reader"))
		reader = status.User

		_, err = r.authenticate(ctx, readerToken)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(requests.count("tokenreviews")).To(Equal(1), "the answer was not kept")
		clock.Step(tokenReviewTTL + time.Second)
		_, err = r.authenticate(ctx, readerToken)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(requests.count("tokenreviews")).To(Equal(2), "the answer was kept past its time")
	})

	t.Run("refuses a forged token, and keeps the refusal for 10 seconds", func(t *testing.T) {
		g := NewWithT(t)
		forged := "forged." + nosyToken[strings.IndexByte(nosyToken, '.')+1:] + "x"
		before := requests.count("tokenreviews")
		for range 2 {
			status, err := r.authenticate(ctx, forged)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(status.Authenticated).To(BeFalse())
			g.Expect(status.Error).NotTo(BeEmpty())
		}
		g.Expect(requests.count("tokenreviews")).To(Equal(before + 1))
		clock.Step(refusedTTL + time.Second)
		_, err := r.authenticate(ctx, forged)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(requests.count("tokenreviews")).To(Equal(before + 2))
	})

	t.Run("allows the reader to get /metrics, and asks again after five minutes", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(reader.Username).NotTo(BeEmpty(), "the first subtest did not authenticate the reader")
		before := requests.count("subjectaccessreviews")
		status, err := r.authorize(ctx, reader, "get", "/metrics")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(status.Allowed).To(BeTrue(), status.Reason)

		clock.Step(allowedTTL - time.Second)
		_, err = r.authorize(ctx, reader, "get", "/metrics")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(requests.count("subjectaccessreviews")).To(Equal(before + 1))
		clock.Step(2 * time.Second)
		_, err = r.authorize(ctx, reader, "get", "/metrics")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(requests.count("subjectaccessreviews")).To(Equal(before + 2))
	})

	t.Run("denies what no role grants, and asks again after 30 seconds", func(t *testing.T) {
		g := NewWithT(t)
		nosy, err := r.authenticate(ctx, nosyToken)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(nosy.Authenticated).To(BeTrue(), nosy.Error)
		for _, tc := range []struct {
			user       authenticationv1.UserInfo
			verb, path string
		}{
			{nosy.User, "get", "/metrics"},
			{reader, "get", "/debug/pprof/heap"},
			{reader, "post", "/metrics"},
		} {
			before := requests.count("subjectaccessreviews")
			status, err := r.authorize(ctx, tc.user, tc.verb, tc.path)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(status.Allowed).To(BeFalse(), "%s may %s %s", tc.user.Username, tc.verb, tc.path)
			_, err = r.authorize(ctx, tc.user, tc.verb, tc.path)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(requests.count("subjectaccessreviews")).To(Equal(before + 1))
		}
		before := requests.count("subjectaccessreviews")
		clock.Step(deniedTTL + time.Second)
		_, err = r.authorize(ctx, nosy.User, "get", "/metrics")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(requests.count("subjectaccessreviews")).To(Equal(before + 1))
	})

	t.Run("tries again an API server that does not answer, and keeps no answer", func(t *testing.T) {
		g := NewWithT(t)
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		g.Expect(err).NotTo(HaveOccurred())
		gone := &rest.Config{Host: "https://" + listener.Addr().String()}
		g.Expect(listener.Close()).To(Succeed())
		attempts := &requestCounter{}
		unanswered := reviewerFor(t, gone, attempts, clock)

		_, err = unanswered.authenticate(ctx, readerToken)
		g.Expect(err).To(MatchError(ContainSubstring("connection refused")))
		g.Expect(attempts.count("tokenreviews")).To(Equal(reviewBackoff.Steps))
		g.Expect(unanswered.tokens.Keys()).To(BeEmpty())
	})

	t.Run("does not try again a review the API server refuses, nor keep it", func(t *testing.T) {
		g := NewWithT(t)
		stranger := rest.AnonymousClientConfig(env.Config)
		stranger.BearerToken = "not-a-token"
		attempts := &requestCounter{}
		refused := reviewerFor(t, stranger, attempts, clock)

		_, err := refused.authenticate(ctx, readerToken)
		g.Expect(apierrors.IsUnauthorized(err)).To(BeTrue(), "%v", err)
		g.Expect(attempts.count("tokenreviews")).To(Equal(1))
		g.Expect(refused.tokens.Keys()).To(BeEmpty())
	})
}

// reviewerFor is a reviewer that acts with config and counts its requests.
func reviewerFor(t *testing.T, config *rest.Config, requests *requestCounter, clock *clocktesting.FakeClock) *reviewer {
	g := NewWithT(t)
	config = rest.CopyConfig(config)
	config.Wrap(func(next http.RoundTripper) http.RoundTripper {
		requests.next = next
		return requests
	})
	httpClient, err := rest.HTTPClientFor(config)
	g.Expect(err).NotTo(HaveOccurred())
	authentication, err := authenticationv1client.NewForConfigAndClient(config, httpClient)
	g.Expect(err).NotTo(HaveOccurred())
	authorization, err := authorizationv1client.NewForConfigAndClient(config, httpClient)
	g.Expect(err).NotTo(HaveOccurred())
	return newReviewer(authentication.TokenReviews(), authorization.SubjectAccessReviews(), clock)
}

// requestCounter counts the requests sent, by the last element of their
// path (the resource).
type requestCounter struct {
	next http.RoundTripper

	mu         sync.Mutex
	byResource map[string]int
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.byResource == nil {
		c.byResource = map[string]int{}
	}
	c.byResource[req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]]++
	c.mu.Unlock()
	return c.next.RoundTrip(req)
}

func (c *requestCounter) count(resource string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byResource[resource]
}
