package kube

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestChangeReason(t *testing.T) {
	tests := []struct {
		name                           string
		created, changed, specObserved bool
		wantReason, wantAction         string
	}{
		{name: "first creation", created: true, specObserved: false, wantReason: ReasonCreated, wantAction: "Create"},
		{name: "deleted after the spec was in place", created: true, specObserved: true, wantReason: ReasonRecreated, wantAction: "Create"},
		{name: "nothing changed", changed: false, specObserved: true, wantReason: "", wantAction: ""},
		{name: "nothing changed after a spec change", changed: false, specObserved: false},
		{name: "a new spec rolled in", changed: true, specObserved: false, wantReason: ReasonUpdated, wantAction: "Update"},
		{name: "drift put back", changed: true, specObserved: true, wantReason: ReasonRepaired, wantAction: "Update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			reason, action := changeReason(tt.created, tt.changed, tt.specObserved)
			g.Expect(reason).To(Equal(tt.wantReason))
			g.Expect(action).To(Equal(tt.wantAction))
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{name: "short enough", in: "abc", limit: 3, want: "abc"},
		{name: "cut with an ellipsis", in: "abcdefgh", limit: 6, want: "abc…"},
		// "é" is two bytes and "…" three: a cut at byte 4 would split the
		// second "é", so it moves before it.
		{name: "never inside a character", in: "aéééé", limit: 7, want: "aé…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := truncate(tt.in, tt.limit)
			g.Expect(got).To(Equal(tt.want))
			g.Expect(len(got)).To(BeNumerically("<=", tt.limit))
		})
	}
}

func TestCreations(t *testing.T) {
	g := NewWithT(t)
	var c creations
	web := client.ObjectKey{Namespace: "shop", Name: "web"}

	g.Expect(c.recent("Deployment", web)).To(BeFalse(), "never created")
	c.add("Deployment", web)
	g.Expect(c.recent("Deployment", web)).To(BeTrue(), "created, not yet in the cache")
	g.Expect(c.recent("Service", web)).To(BeFalse(), "another kind of the same name")
	c.seen("Deployment", web)
	g.Expect(c.recent("Deployment", web)).To(BeFalse(), "the cache has it: missing from it now means it left it")

	c.add("Deployment", web)
	c.at[creationKey("Deployment", web)] = time.Now().Add(-2 * cacheLagAllowance)
	g.Expect(c.recent("Deployment", web)).To(BeFalse(), "created too long ago for the cache to be still behind")
	c.add("Service", web)
	g.Expect(c.at).To(HaveLen(1), "old entries go when a new one comes")
}
