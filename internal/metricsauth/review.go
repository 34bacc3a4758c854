package metricsauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
)

const (
	// A token is reviewed once a minute, and a user's access once every
	// five when allowed: a scraper every 15 s costs the API server little.
	// A denial is kept shorter, so that a binding just made takes effect
	// soon. A refusal is kept shortest: the API server also refuses a good
	// token when it fails to look up its ServiceAccount, and a scraper
	// should not be locked out for long by that.
	tokenReviewTTL = time.Minute
	refusedTTL     = 10 * time.Second
	allowedTTL     = 5 * time.Minute
	deniedTTL      = 30 * time.Second

	// reviewTimeout bounds a review, its retries included, so that a scrape
	// fails while the scraper still waits for it.
	reviewTimeout = 10 * time.Second

	// cacheSize bounds each cache. A metrics endpoint has a few scrapers;
	// the bound keeps a flood of made-up tokens from growing the memory,
	// at worst at the cost of reviewing the real ones again.
	cacheSize = 1024
)

// reviewBackoff spaces the retries of a review the API server did not
// answer, as kube-apiserver spaces those of its authentication and
// authorization webhooks.
var reviewBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// reviewer asks the API server who a bearer token belongs to (a
// TokenReview) and whether a user may make a request (a
// SubjectAccessReview), and keeps each answer for a while, as
// kube-apiserver's delegating authenticator and authorizer do. Errors are
// not kept: the next request asks again.
type reviewer struct {
	tokenReviews  authenticationv1client.TokenReviewInterface
	accessReviews authorizationv1client.SubjectAccessReviewInterface

	// tokens holds TokenReviewStatus by the token's SHA-256 (the token
	// itself is not kept); access holds SubjectAccessReviewStatus by the
	// review's spec.
	tokens *cache.LRUExpireCache
	access *cache.LRUExpireCache
}

func newReviewer(
	tokenReviews authenticationv1client.TokenReviewInterface,
	accessReviews authorizationv1client.SubjectAccessReviewInterface,
	clock cache.Clock,
) *reviewer {
	return &reviewer{
		tokenReviews:  tokenReviews,
		accessReviews: accessReviews,
		tokens:        cache.NewLRUExpireCacheWithClock(cacheSize, clock),
		access:        cache.NewLRUExpireCacheWithClock(cacheSize, clock),
	}
}

// authenticate is the API server's answer to a TokenReview of token.
func (r *reviewer) authenticate(ctx context.Context, token string) (authenticationv1.TokenReviewStatus, error) {
	status, err := remembered(ctx, r.tokens, sha256.Sum256([]byte(token)), tokenTTL,
		func(ctx context.Context) (authenticationv1.TokenReviewStatus, error) {
			request := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}
			review, err := r.tokenReviews.Create(ctx, request, metav1.CreateOptions{})
			if err != nil {
				return authenticationv1.TokenReviewStatus{}, err
			}
			// The status alone: the answer repeats the token in its spec.
			return review.Status, nil
		})
	if err != nil {
		return status, fmt.Errorf("reviewing a token: %w", err)
	}
	return status, nil
}

// authorize is the API server's answer to a SubjectAccessReview of user
// doing verb on the non-resource path.
func (r *reviewer) authorize(
	ctx context.Context, user authenticationv1.UserInfo, verb, path string,
) (authorizationv1.SubjectAccessReviewStatus, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User:                  user.Username,
		UID:                   user.UID,
		Groups:                user.Groups,
		Extra:                 make(map[string]authorizationv1.ExtraValue, len(user.Extra)),
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	for name, values := range user.Extra {
		spec.Extra[name] = authorizationv1.ExtraValue(values)
	}
	// The spec is all the answer depends on; encoding/json writes a map's
	// keys in order, so the same spec is the same key.
	key, err := json.Marshal(spec)
	if err != nil {
		return authorizationv1.SubjectAccessReviewStatus{}, fmt.Errorf("encoding an access review: %w", err)
	}
	status, err := remembered(ctx, r.access, string(key), accessTTL,
		func(ctx context.Context) (authorizationv1.SubjectAccessReviewStatus, error) {
			review, err := r.accessReviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
			if err != nil {
				return authorizationv1.SubjectAccessReviewStatus{}, err
			}
			return review.Status, nil
		})
	if err != nil {
		return status, fmt.Errorf("reviewing %s's access to %s: %w", user.Username, path, err)
	}
	return status, nil
}

// tokenTTL is how long a token's review is kept.
func tokenTTL(status authenticationv1.TokenReviewStatus) time.Duration {
	if status.Authenticated {
		return tokenReviewTTL
	}
	return refusedTTL
}

// accessTTL is how long an access review is kept.
func accessTTL(status authorizationv1.SubjectAccessReviewStatus) time.Duration {
	if status.Allowed {
		return allowedTTL
	}
	return deniedTTL
}

// remembered is the answer c holds for key, or else the one ask gets with
// review, which c then holds for ttl(answer). An error is not held.
func remembered[T any](
	ctx context.Context, c *cache.LRUExpireCache, key any, ttl func(T) time.Duration, review func(context.Context) (T, error),
) (T, error) {
	if answer, ok := c.Get(key); ok {
		return answer.(T), nil
	}
	answer, err := ask(ctx, review)
	if err != nil {
		return answer, err
	}
	c.Add(key, answer, ttl(answer))
	return answer, nil
}

// ask sends a review, again while the API server's error says it may
// answer later, until reviewTimeout has passed or the request is gone.
func ask[T any](ctx context.Context, review func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	var answer T
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, reviewBackoff, func(ctx context.Context) (bool, error) {
		answer, last = review(ctx)
		switch {
		case last == nil:
			return true, nil
		case transient(last):
			return false, nil
		default:
			return false, last
		}
	})
	if wait.Interrupted(err) && last != nil {
		// Out of tries or of time: what the API server said last is the
		// reason.
		err = last
	}
	return answer, err
}

// transient tells whether a review that failed with err may succeed if
// sent again: the connection broke, or the API server said so.
func transient(err error) bool {
	if _, retryAfter := apierrors.SuggestsClientDelay(err); retryAfter {
		return true
	}
	return utilnet.IsConnectionReset(err) || utilnet.IsConnectionRefused(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err)
}
