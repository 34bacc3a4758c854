package kube

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestChangeReason(t *testing.T) {
	tests := []struct {
		name                           string
		existed, changed, specObserved bool
		wantReason, wantAction         string
	}{
		{name: "first creation", existed: false, specObserved: false, wantReason: ReasonCreated, wantAction: "Create"},
		{name: "deleted after the spec was in place", existed: false, specObserved: true, wantReason: ReasonRecreated, wantAction: "Create"},
		{name: "nothing changed", existed: true, changed: false, wantReason: "", wantAction: ""},
		{name: "nothing changed after a spec change", existed: true, changed: false, specObserved: false},
		{name: "a new spec rolled in", existed: true, changed: true, specObserved: false, wantReason: ReasonUpdated, wantAction: "Update"},
		{name: "drift put back", existed: true, changed: true, specObserved: true, wantReason: ReasonRepaired, wantAction: "Update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			reason, action := changeReason(tt.existed, tt.changed, tt.specObserved)
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
