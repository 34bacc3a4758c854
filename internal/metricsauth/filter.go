// Package metricsauth guards the operator's metrics endpoint: only a client
// whose bearer token the API server accepts (a TokenReview), and whom it
// allows to get the path (a SubjectAccessReview), gets the metrics.
//
// It answers as kube-apiserver does for its own endpoints: 401 for any
// request it cannot authenticate, whatever the reason, and 403 for one it
// may not serve. controller-runtime's filter answers 500 when the
// TokenReview says why it refused a token (a forged or malformed one), so
// a scraper cannot tell a bad credential from a broken operator, and a
// prober counts an attacker's guesses as server errors.
package metricsauth

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authenticationv1 "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	// A review is asked once a minute per token, and a SubjectAccessReview
	// once per allowed user every five: a scraper every 15 s costs the API
	// server little. A denial is kept shorter, so that a binding just made
	// takes effect soon.
	tokenReviewTTL = time.Minute
	allowedTTL     = 5 * time.Minute
	deniedTTL      = 30 * time.Second
	reviewTimeout  = 10 * time.Second
)

// reviewBackoff retries a review the API server did not answer, as
// kube-apiserver retries its own authentication and authorization webhooks.
func reviewBackoff() *wait.Backoff {
	return &wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// Filter is a metricsserver.FilterProvider that asks the API server, with
// config, who each request comes from and whether they may read the path.
func Filter(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authentication, err := authenticationv1.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("making the TokenReview client: %w", err)
	}
	authorization, err := authorizationv1.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("making the SubjectAccessReview client: %w", err)
	}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                &apiserver.AnonymousAuthConfig{Enabled: false},
		TokenAccessReviewClient:  authentication,
		TokenAccessReviewTimeout: reviewTimeout,
		WebhookRetryBackoff:      reviewBackoff(),
		CacheTTL:                 tokenReviewTTL,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("making the authenticator: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: authorization,
		AllowCacheTTL:             allowedTTL,
		DenyCacheTTL:              deniedTTL,
		WebhookRetryBackoff:       reviewBackoff(),
	}.New()
	if err != nil {
		return nil, fmt.Errorf("making the authorizer: %w", err)
	}
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return guard(log, authn, authz, next), nil
	}, nil
}

// guard serves next to the requests authn authenticates and authz allows.
func guard(log logr.Logger, authn authenticator.Request, authz authorizer.Authorizer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		response, ok, err := authn.AuthenticateRequest(req)
		if err != nil || !ok {
			// The reason stays in the log: a client that sent a bad token
			// learns nothing from it.
			log.V(1).Info("Refused a metrics request that is not authenticated", "remote", req.RemoteAddr, "reason", err)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		user := response.User
		decision, reason, err := authz.Authorize(req.Context(), authorizer.AttributesRecord{
			User: user,
			Verb: strings.ToLower(req.Method),
			Path: req.URL.Path,
		})
		if err != nil {
			log.Error(err, "Could not authorize a metrics request", "user", user.GetName())
			http.Error(w, "Authorization failed", http.StatusInternalServerError)
			return
		}
		if decision != authorizer.DecisionAllow {
			log.V(1).Info("Refused a metrics request", "user", user.GetName(), "reason", reason)
			http.Error(w, fmt.Sprintf("%s may not %s %s", user.GetName(), req.Method, req.URL.Path), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	})
}
