package kube

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestCheckLeaseTimings(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name                string
		lease, renew, retry time.Duration
		wantErr             string
	}{
		{name: "the operator's defaults", lease: DefaultLeaseDuration, renew: DefaultRenewDeadline, retry: DefaultRetryPeriod},
		{name: "a lease a second shorter", lease: 13 * s, renew: 8 * s, retry: s,
			wantErr: "the lease duration (13s) must be longer than the retry period plus 1.5 times the renew deadline (13s)"},
		{name: "a renew deadline a second longer", lease: 15 * s, renew: 9 * s, retry: 2 * s,
			wantErr: "the lease duration (15s) must be longer than the retry period plus 1.5 times the renew deadline (15.5s)"},
		{name: "just long enough", lease: 55 * s, renew: 35 * s, retry: 2 * s},
		{name: "a leader could still run when another takes the lead", lease: 54500 * time.Millisecond, renew: 35 * s, retry: 2 * s,
			wantErr: "the lease duration (54.5s) must be longer than the retry period plus 1.5 times the renew deadline (54.5s)"},
		{name: "controller-runtime's defaults", lease: 15 * s, renew: 10 * s, retry: 2 * s,
			wantErr: "the lease duration (15s) must be longer than the retry period plus 1.5 times the renew deadline (17s)"},
		{name: "renew deadline past the lease", lease: 45 * s, renew: 50 * s, retry: 2 * s,
			wantErr: "the lease duration (45s) must be longer"},
		{name: "no time to retry", lease: 60 * s, renew: 2 * s, retry: 2 * s,
			wantErr: "the retry period (2s) must be shorter than the renew deadline (2s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := CheckLeaseTimings(tt.lease, tt.renew, tt.retry)
			if tt.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
		})
	}
}
