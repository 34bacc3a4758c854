//go:build e2e

package e2e

import (
	"time"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

// retriedTooSoon counts the requests answered 429 after which the same verb
// on the same object came back within wait, and how many of those a client
// that waits out every Retry-After (wait at least) may make: client-go
// tries a request ten times more, each after its Retry-After, then gives
// up, and the caller may then ask again at once. So of every eleven 429s
// in a row on one verb and object, one at most is followed sooner.
func retriedTooSoon(events []testenv.AuditEvent, wait time.Duration) (tooSoon, allowed int) {
	type request struct{ verb, group, resource, subresource, namespace, name string }
	last429 := map[request]time.Time{}
	inARow := map[request]int{}
	for _, e := range events {
		r := request{e.Verb, e.ObjectRef.APIGroup, e.ObjectRef.Resource, e.ObjectRef.Subresource, e.ObjectRef.Namespace, e.ObjectRef.Name}
		if at, ok := last429[r]; ok && e.Received.Sub(at) < wait {
			tooSoon++
		}
		delete(last429, r)
		if e.Code() != 429 {
			inARow[r] = 0
			continue
		}
		last429[r] = e.Answered.Time
		if inARow[r]++; inARow[r]%11 == 0 {
			allowed++
		}
	}
	return tooSoon, allowed
}
