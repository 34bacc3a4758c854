package metricsauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestGuard(t *testing.T) {
	scraper := &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:monitoring:prometheus"}}
	tests := []struct {
		name       string
		authn      authenticator.RequestFunc
		authz      authorizer.AuthorizerFunc
		wantStatus int
		wantBody   string
	}{
		{
			name:       "an allowed reader gets the metrics",
			authn:      authenticated(scraper, nil),
			authz:      decides(authorizer.DecisionAllow, nil),
			wantStatus: http.StatusOK, wantBody: "metrics",
		},
		{
			name:       "no token, or one the review does not accept",
			authn:      authenticated(nil, nil),
			authz:      decides(authorizer.DecisionAllow, nil),
			wantStatus: http.StatusUnauthorized, wantBody: "Unauthorized",
		},
		{
			name:       "a token the review fails on, as a forged one",
			authn:      authenticated(nil, errors.New("[invalid bearer token, token lookup failed]")),
			authz:      decides(authorizer.DecisionAllow, nil),
			wantStatus: http.StatusUnauthorized, wantBody: "Unauthorized",
		},
		{
			name:       "a user no role lets read the metrics",
			authn:      authenticated(scraper, nil),
			authz:      decides(authorizer.DecisionNoOpinion, nil),
			wantStatus: http.StatusForbidden, wantBody: "system:serviceaccount:monitoring:prometheus may not GET /metrics",
		},
		{
			name:       "no answer to the access review",
			authn:      authenticated(scraper, nil),
			authz:      decides(authorizer.DecisionNoOpinion, errors.New("connection refused")),
			wantStatus: http.StatusInternalServerError, wantBody: "Authorization failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var asked authorizer.Attributes
			authz := authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
				asked = a
				return tt.authz(ctx, a)
			})
			metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics")) })
			recorder := httptest.NewRecorder()

			guard(logr.Discard(), tt.authn, authz, metrics).ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, "/metrics", nil))

			g.Expect(recorder.Code).To(Equal(tt.wantStatus))
			g.Expect(recorder.Body.String()).To(ContainSubstring(tt.wantBody))
			if tt.wantStatus == http.StatusUnauthorized {
				g.Expect(asked).To(BeNil(), "an unauthenticated request was sent to the authorizer")
				return
			}
			g.Expect(asked.GetVerb()).To(Equal("get"))
			g.Expect(asked.GetPath()).To(Equal("/metrics"))
			g.Expect(asked.GetUser().GetName()).To(Equal(scraper.User.GetName()))
		})
	}
}

func authenticated(response *authenticator.Response, err error) authenticator.RequestFunc {
	return func(*http.Request) (*authenticator.Response, bool, error) {
		return response, response != nil, err
	}
}

func decides(decision authorizer.Decision, err error) authorizer.AuthorizerFunc {
	return func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return decision, "", err
	}
}
