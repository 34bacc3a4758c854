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
//
// It sends the two reviews with client-go's typed clients rather than
// through k8s.io/apiserver's delegating authenticator and authorizer, which
// bring most of an API server into the binary (CEL, gRPC, OpenTelemetry):
// a third of its code, whose pages every replica keeps in memory.
package metricsauth

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// reviews answers who a bearer token belongs to, and whether a user may
// make a request.
type reviews interface {
	authenticate(ctx context.Context, token string) (authenticationv1.TokenReviewStatus, error)
	authorize(ctx context.Context, user authenticationv1.UserInfo, verb, path string) (authorizationv1.SubjectAccessReviewStatus, error)
}

// Filter is a metricsserver.FilterProvider that asks the API server, with
// config, who each request comes from and whether they may read the path.
func Filter(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authentication, err := authenticationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("making the TokenReview client: %w", err)
	}
	authorization, err := authorizationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("making the SubjectAccessReview client: %w", err)
	}
	r := newReviewer(authentication.TokenReviews(), authorization.SubjectAccessReviews(), clock.RealClock{})
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return guard(log, r, next), nil
	}, nil
}

// guard serves next to the requests whose bearer token the API server
// accepts, from users it allows to make them.
func guard(log logr.Logger, r reviews, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token := bearerToken(req)
		if token == "" {
			refuse(log, w, req, "no bearer token")
			return
		}
		identity, err := r.authenticate(req.Context(), token)
		switch {
		case err != nil:
			// Not the client's fault: the API server is away, or the
			// operator may not create TokenReviews.
			log.Error(err, "Could not authenticate a metrics request", "remote", req.RemoteAddr)
			refuse(log, w, req, err.Error())
			return
		case !identity.Authenticated:
			refuse(log, w, req, identity.Error)
			return
		}
		// Nothing past this point needs the token, nor may log it.
		req.Header.Del("Authorization")

		user := identity.User
		access, err := r.authorize(req.Context(), user, strings.ToLower(req.Method), req.URL.Path)
		if err != nil {
			log.Error(err, "Could not authorize a metrics request", "user", user.Username)
			http.Error(w, "Authorization failed", http.StatusInternalServerError)
			return
		}
		if !access.Allowed || access.Denied {
			log.V(1).Info("Refused a metrics request", "user", user.Username, "reason", access.Reason)
			http.Error(w, fmt.Sprintf("%s may not %s %s", user.Username, req.Method, req.URL.Path), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// refuse answers a request that is not authenticated. The reason stays in
// the log: a client that sent a bad token learns nothing from it.
func refuse(log logr.Logger, w http.ResponseWriter, req *http.Request, reason string) {
	log.V(1).Info("Refused a metrics request that is not authenticated", "remote", req.RemoteAddr, "reason", reason)
	http.Error(w, "Unauthorized", http.StatusUnauthorized)
}

// bearerToken is the token of the request's "Authorization: Bearer"
// header, or "" when it has none.
func bearerToken(req *http.Request) string {
	scheme, token, found := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
