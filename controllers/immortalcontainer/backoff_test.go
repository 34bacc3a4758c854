package immortalcontainer

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNextStart(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// starts are times after t0, oldest first.
	starts := func(offsets ...time.Duration) []metav1.Time {
		times := make([]metav1.Time, len(offsets))
		for i, d := range offsets {
			times[i] = metav1.NewTime(t0.Add(d))
		}
		return times
	}
	// quickRun is n starts 5 seconds apart.
	quickRun := func(n int) []time.Duration {
		offsets := make([]time.Duration, n)
		for i := range offsets {
			offsets[i] = time.Duration(i) * 5 * time.Second
		}
		return offsets
	}
	lastOf := func(offsets []time.Duration) time.Time { return t0.Add(offsets[len(offsets)-1]) }

	tests := []struct {
		name   string
		starts []metav1.Time
		want   time.Time
	}{
		{name: "no pod started yet", starts: nil, want: time.Time{}},
		{name: "one start: its replacement starts at once", starts: starts(0), want: t0},
		{name: "two quick starts", starts: starts(quickRun(2)...), want: lastOf(quickRun(2)).Add(10 * time.Second)},
		{name: "three quick starts", starts: starts(quickRun(3)...), want: lastOf(quickRun(3)).Add(20 * time.Second)},
		{name: "four quick starts", starts: starts(quickRun(4)...), want: lastOf(quickRun(4)).Add(40 * time.Second)},
		{name: "six quick starts, the last wait below the cap", starts: starts(quickRun(6)...), want: lastOf(quickRun(6)).Add(160 * time.Second)},
		{name: "seven quick starts reach the cap", starts: starts(quickRun(7)...), want: lastOf(quickRun(7)).Add(5 * time.Minute)},
		{name: "fifty quick starts stay at the cap", starts: starts(quickRun(50)...), want: lastOf(quickRun(50)).Add(5 * time.Minute)},
		{
			name:   "a pod that lived 10 minutes ends the run",
			starts: starts(0, 5*time.Second, 10*time.Second, 10*time.Second+10*time.Minute),
			want:   t0.Add(10*time.Second + 10*time.Minute),
		},
		{
			name:   "a new run after a long-lived pod backs off from the start",
			starts: starts(0, 5*time.Second, 10*time.Second, 10*time.Second+10*time.Minute, 20*time.Second+10*time.Minute),
			want:   t0.Add(20*time.Second + 10*time.Minute + 10*time.Second),
		},
		{
			name:   "a pod that lived just under 10 minutes is still a quick restart",
			starts: starts(0, 10*time.Minute-time.Second),
			want:   t0.Add(10*time.Minute - time.Second + 10*time.Second),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(nextStart(tt.starts)).To(BeTemporally("==", tt.want))
		})
	}
}
