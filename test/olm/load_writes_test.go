//go:build olm

package olm

import (
	"encoding/json"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/seed-operators/seed-operator/internal/testenv"
)

func TestOwnedWritesIn(t *testing.T) {
	// event is an audit event of a pod's request to a Deployment.
	event := func(pod, verb, namespace, name string, code int) testenv.AuditEvent {
		var e testenv.AuditEvent
		line := fmt.Sprintf(`{"verb": %q, "user": {"extra": {"authentication.kubernetes.io/pod-name": [%q]}},
			"objectRef": {"apiGroup": "apps", "resource": "deployments", "namespace": %q, "name": %q},
			"responseStatus": {"code": %d}}`, verb, pod, namespace, name, code)
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	tests := []struct {
		name        string
		events      []testenv.AuditEvent
		wantMade    map[string]int
		wantUpdates map[string]int
		wantWriters map[string][]string
		wantFought  int
	}{
		{
			name: "made by the old pod, taken over by the new one: no fight",
			events: []testenv.AuditEvent{
				event("old", "patch", "work", "a", 201), event("old", "patch", "work", "a", 200),
				event("new", "patch", "work", "a", 200), event("new", "patch", "work", "a", 200),
			},
			wantMade:    map[string]int{"deployments/a": 1},
			wantUpdates: map[string]int{"deployments/a": 3},
			wantWriters: map[string][]string{"deployments/a": {"old", "new"}},
		},
		{
			name: "written back by the old pod after the new one",
			events: []testenv.AuditEvent{
				event("old", "patch", "work", "a", 200), event("new", "patch", "work", "a", 200), event("old", "patch", "work", "a", 200),
			},
			wantMade:    map[string]int{},
			wantUpdates: map[string]int{"deployments/a": 3},
			wantWriters: map[string][]string{"deployments/a": {"old", "new", "old"}},
			wantFought:  1,
		},
		{
			name: "reads, refused writes and other namespaces left out",
			events: []testenv.AuditEvent{
				event("old", "get", "work", "a", 200), event("old", "patch", "work", "a", 409),
				event("new", "patch", "elsewhere", "a", 200),
			},
			wantMade: map[string]int{}, wantUpdates: map[string]int{}, wantWriters: map[string][]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			w := ownedWritesIn(tt.events, "work")
			g.Expect(w.made).To(Equal(tt.wantMade))
			g.Expect(w.updates).To(Equal(tt.wantUpdates))
			g.Expect(w.writers).To(Equal(tt.wantWriters))
			g.Expect(w.fought).To(HaveLen(tt.wantFought))
		})
	}
}
