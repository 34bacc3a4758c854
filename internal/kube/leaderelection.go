package kube

import (
	"fmt"
	"time"
)

// LeaderElectionID names the Lease on which the operator's replicas elect
// the one that reconciles.
const LeaderElectionID = "seed-operator.seed.example.com"

// CheckLeaseTimings refuses leader election timings under which two
// replicas could lead at once. A leader cut off from the API server keeps
// its controllers running until it gives the lead up: after renewals fail
// for renewDeadline (the last success up to a retryPeriod before), and
// after client-go's attempt to release the Lease, one request that times
// out after renewDeadline/2 as controller-runtime sets the client's
// timeout. The others take the lead leaseDuration after the last renewal
// they saw, so that must come later.
func CheckLeaseTimings(leaseDuration, renewDeadline, retryPeriod time.Duration) error {
	if retryPeriod >= renewDeadline {
		return fmt.Errorf("the retry period (%s) must be shorter than the renew deadline (%s): the leader must get to retry a renewal",
			retryPeriod, renewDeadline)
	}
	if stopped := retryPeriod + renewDeadline*3/2; leaseDuration <= stopped {
		return fmt.Errorf("the lease duration (%s) must be longer than the retry period plus 1.5 times the renew deadline (%s): "+
			"a leader cut off from the API server runs that long before it stops, and no other may lead before then",
			leaseDuration, stopped)
	}
	return nil
}
