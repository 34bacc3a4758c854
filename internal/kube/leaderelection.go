package kube

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
)

// LeaderElectionID names the Lease on which the operator's replicas elect
// the one that reconciles.
const LeaderElectionID = "seed-operator.seed.example.com"

// The manager's leader election timings, near controller-runtime's and
// kube-controller-manager's (15 s, 10 s, 2 s) but passing
// CheckLeaseTimings. The retry period is a second so that a follower
// takes the lead of a replica that died within 20 s: it sees the Lease
// unrenewed at its first try after the lease duration, counted from the
// last change it saw, and client-go jitters the time between tries up to
// 2.2 retry periods, so two of them may pass on top.
const (
	DefaultLeaseDuration = 14 * time.Second
	DefaultRenewDeadline = 8 * time.Second
	DefaultRetryPeriod   = time.Second
)

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

// LeaderElectionLock is the Lease LeaderElectionID in namespace, held as
// identity, for a manager whose replicas each have a name of their own that
// outlives a restart: the pod's. A manager restarted in the same pod (an
// OOM kill, a lost lease) finds itself the Lease's holder and takes the
// lead back as soon as it reaches the API server, where under a new
// identity it would wait out the lease its previous run left. Two
// managers never share a pod's name at once: the kubelet starts a
// container again only once it has exited.
//
// It is built as controller-runtime builds its own, whose identity is the
// host's name with a suffix new at each start: the client's timeout half
// the renew deadline, on which CheckLeaseTimings rests.
func LeaderElectionLock(config *rest.Config, namespace, identity string, renewDeadline time.Duration) (resourcelock.Interface, error) {
	config = rest.AddUserAgent(rest.CopyConfig(config), "leader-election")
	config.Timeout = max(renewDeadline/2, time.Second)
	core, err := corev1client.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("creating the leader election's client: %w", err)
	}
	coordination, err := coordinationv1client.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("creating the leader election's client: %w", err)
	}
	// As controller-runtime's lock does, it announces a new leader with a
	// core/v1 Event on the Lease.
	events := record.NewBroadcaster()
	events.StartRecordingToSink(&corev1client.EventSinkImpl{Interface: core.Events(namespace)})
	recorder := events.NewRecorder(scheme.Scheme, corev1.EventSource{Component: identity})
	return resourcelock.New(resourcelock.LeasesResourceLock, namespace, LeaderElectionID, core, coordination,
		resourcelock.ResourceLockConfig{Identity: identity, EventRecorder: recorder})
}
