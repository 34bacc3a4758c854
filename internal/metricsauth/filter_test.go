package metricsauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
)

const scraperToken = "scraper-token"

var scraper = authenticationv1.UserInfo{Username: "system:serviceaccount:monitoring:prometheus"}

// fakeReviews answers as the API server would have, and records what it
// was asked.
type fakeReviews struct {
	identity    authenticationv1.TokenReviewStatus
	identityErr error
	access      authorizationv1.SubjectAccessReviewStatus
	accessErr   error

	tokens []string
	asked  []authorizationv1.NonResourceAttributes
}

func (f *fakeReviews) authenticate(_ context.Context, token string) (authenticationv1.TokenReviewStatus, error) {
	f.tokens = append(f.tokens, token)
	return f.identity, f.identityErr
}

func (f *fakeReviews) authorize(_ context.Context, user authenticationv1.UserInfo, verb, path string) (authorizationv1.SubjectAccessReviewStatus, error) {
	if user.Username != scraper.Username {
		return authorizationv1.SubjectAccessReviewStatus{}, errors.New("asked about another user")
	}
	f.asked = append(f.asked, authorizationv1.NonResourceAttributes{Verb: verb, Path: path})
	return f.access, f.accessErr
}

func TestGuard(t *testing.T) {
	accepted := authenticationv1.TokenReviewStatus{Authenticated: true, User: scraper}
	allowed := authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	tests := []struct {
		name          string
		authorization string
		reviews       fakeReviews
		wantStatus    int
		wantBody      string
		// notReviewed: the request has no bearer token to review.
		notReviewed bool
	}{
		{
			name:          "an allowed reader gets the metrics",
			authorization: "Bearer " + scraperToken,
			reviews:       fakeReviews{identity: accepted, access: allowed},
			wantStatus:    http.StatusOK, wantBody: "metrics",
		},
		{
			name:          "the scheme's case does not matter",
			authorization: "bearer " + scraperToken,
			reviews:       fakeReviews{identity: accepted, access: allowed},
			wantStatus:    http.StatusOK, wantBody: "metrics",
		},
		{
			name:       "no token",
			reviews:    fakeReviews{identity: accepted, access: allowed},
			wantStatus: http.StatusUnauthorized, wantBody: "Unauthorized",
			notReviewed: true,
		},
		{
			name:          "credentials that are not a bearer token",
			authorization: "Basic " + scraperToken,
			reviews:       fakeReviews{identity: accepted, access: allowed},
			wantStatus:    http.StatusUnauthorized, wantBody: "Unauthorized",
			notReviewed: true,
		},
		{
			name:          "an empty bearer token",
			authorization: "Bearer  ",
			reviews:       fakeReviews{identity: accepted, access: allowed},
			wantStatus:    http.StatusUnauthorized, wantBody: "Unauthorized",
			notReviewed: true,
		},
		{
			name:          "a token the review refuses, with its reason",
			authorization: "Bearer " + scraperToken,
			reviews: fakeReviews{
				identity: authenticationv1.TokenReviewStatus{Error: "[invalid bearer token, token lookup failed]"},
				access:   allowed,
			},
			wantStatus: http.StatusUnauthorized, wantBody: "Unauthorized",
		},
		{
			name:          "no answer to the token review",
			authorization: "Bearer " + scraperToken,
			reviews:       fakeReviews{identityErr: errors.New("connection refused"), access: allowed},
			wantStatus:    http.StatusUnauthorized, wantBody: "Unauthorized",
		},
		{
			name:          "a user no role lets read the metrics",
			authorization: "Bearer " + scraperToken,
			reviews:       fakeReviews{identity: accepted, access: authorizationv1.SubjectAccessReviewStatus{Reason: "no RBAC policy matched"}},
			wantStatus:    http.StatusForbidden, wantBody: scraper.Username + " may not GET /metrics",
		},
		{
			name:          "an answer that both allows and denies",
			authorization: "Bearer " + scraperToken,
			reviews:       fakeReviews{identity: accepted, access: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Denied: true}},
			wantStatus:    http.StatusForbidden, wantBody: scraper.Username + " may not GET /metrics",
		},
		{
			name:          "no answer to the access review",
			authorization: "Bearer " + scraperToken,
			reviews:       fakeReviews{identity: accepted, accessErr: errors.New("connection refused")},
			wantStatus:    http.StatusInternalServerError, wantBody: "Authorization failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var forwarded http.Header
			metrics := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				forwarded = req.Header
				_, _ = w.Write([]byte("metrics"))
			})
			request := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			if tt.authorization != "" {
				request.Header.Set("Authorization", tt.authorization)
			}
			recorder := httptest.NewRecorder()

			guard(logr.Discard(), &tt.reviews, metrics).ServeHTTP(recorder, request)

			g.Expect(recorder.Code).To(Equal(tt.wantStatus))
			g.Expect(recorder.Body.String()).To(ContainSubstring(tt.wantBody))
			switch {
			case tt.notReviewed:
				g.Expect(tt.reviews.tokens).To(BeEmpty(), "a request without a bearer token was sent to the authenticator")
				g.Expect(tt.reviews.asked).To(BeEmpty())
			case tt.wantStatus == http.StatusUnauthorized:
				g.Expect(tt.reviews.tokens).To(Equal([]string{scraperToken}))
				g.Expect(tt.reviews.asked).To(BeEmpty(), "an unauthenticated request was sent to the authorizer")
			case tt.wantStatus == http.StatusOK:
				g.Expect(forwarded).NotTo(HaveKey("Authorization"), "the token went on to the metrics handler")
				fallthrough
			default:
				g.Expect(tt.reviews.tokens).To(Equal([]string{scraperToken}))
				g.Expect(tt.reviews.asked).To(Equal([]authorizationv1.NonResourceAttributes{{Verb: "get", Path: "/metrics"}}))
			}
		})
	}
}
