//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/reconnect"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// The chaos specs (make test-chaos) take a part of the control plane away
// from under the operator's two replicas while they reconcile a burst of
// every kind, and bring it back. They build with the chaos tag only: each
// stops the whole cluster for half a minute.
var _ = Describe("Chaos", Label("chaos"), Ordered, Serial, func() {
	// Copies of each kind's sample in the burst.
	const perKind = 24

	var (
		controlPlane *cluster.Cluster
		scrape       func(ctx context.Context, r *replica) testenv.Metrics
	)

	BeforeAll(func(ctx SpecContext) {
		config, err := cluster.ConfigFromEnv()
		Expect(err).NotTo(HaveOccurred(), "the cluster's configuration: run `make test-chaos`")
		controlPlane = cluster.New(config)
		scrape = metricsScraper(ctx)
	})

	DescribeTable("recovers from a control-plane component killed during a burst within 30 s of its return, one leader at a time, creating nothing twice",
		func(ctx SpecContext, component string, down time.Duration) {
			namespace := restrictedNamespace(ctx, "chaos")
			errorsBefore := counted(ctx, scrape, testenv.Metrics.ReconcileErrors)
			exitsBefore := make([]int, len(replicas))
			// The liveness probes, as the kubelet would send them.
			probes := make([]*poller, len(replicas))
			for i, r := range replicas {
				exitsBefore[i] = len(r.exits())
				probes[i] = startPolling(fmt.Sprintf("http://127.0.0.1:%d/healthz", r.probePort))
			}
			created := watchCreations(ctx, namespace)
			objs := burst(ctx, namespace, perKind)
			rec := outage(ctx, controlPlane, component, down, namespace, perKind, objs)
			errors := counted(ctx, scrape, testenv.Metrics.ReconcileErrors) - errorsBefore
			exited := 0
			var failedProbes []string
			for i, p := range probes {
				p.stop()
				sent, failures, _ := p.result()
				Expect(sent).To(BeNumerically(">", 0), "no probe sent to %s", p.url)
				// A manager that exited answers no probe until it is back.
				if n := len(replicas[i].exits()) - exitsBefore[i]; n > 0 {
					exited += n
					continue
				}
				failedProbes = append(failedProbes, failures...)
			}
			report := fmt.Sprintf("%s; %d replica runs exited; the operator's informers reached it again at %s, an operator replica led at %s; %d reconcile errors",
				rec, exited, sinceOrNone(rec.back, lastLogged(reconnect.Reconnected, rec.killed)), sinceOrNone(rec.back, lastAcquired(rec.killed)), int(errors))
			AddReportEntry("chaos: "+component, report)
			GinkgoWriter.Println("Chaos: " + report)

			rec.expectWithinBounds()
			By("one leader at a time, and the probes of the replicas that ran on answering all along")
			expectOneLeaderAtATime()
			Expect(leaseHolderNow(ctx)).NotTo(BeEmpty())
			Expect(failedProbes).To(BeEmpty(), "liveness probes that failed")

			By("reconcile errors bounded by the outage, not by retries")
			Expect(errors).To(BeNumerically("<=", errorBound(len(objs), rec.back.Sub(rec.killed))))

			expectOwnedOnce(ctx, namespace, perKind, created)
		},
		Entry("kube-apiserver", cluster.APIServer, 20*time.Second),
		Entry("etcd", cluster.Etcd, 20*time.Second),
	)

	It("backs off and converges while the API server throttles its requests with 429s", func(ctx SpecContext) {
		namespace := restrictedNamespace(ctx, "chaos-throttled")
		throttledBefore := counted(ctx, scrape, throttledRequests)
		errorsBefore := counted(ctx, scrape, testenv.Metrics.ReconcileErrors)
		exits := exitCount()
		audit := testenv.StartAuditLog()
		throttleOperator(ctx)

		created := watchCreations(ctx, namespace)
		start := time.Now()
		objs := burst(ctx, namespace, perKind)
		expectAllReady(ctx, objs)
		converged := time.Since(start)
		throttled := counted(ctx, scrape, throttledRequests) - throttledBefore
		errors := counted(ctx, scrape, testenv.Metrics.ReconcileErrors) - errorsBefore
		// The API server's Retry-After is a second at least.
		tooSoon, allowed := retriedTooSoon(audit.Events(testenv.OperatorUser), time.Second)
		report := fmt.Sprintf("%d requests answered 429, %d asked again within a second (%d may be); all %d resources Ready %.1fs after the burst began (the bound: %s); %d reconcile errors",
			int(throttled), tooSoon, allowed, len(objs), converged.Seconds(), throttledConvergence, int(errors))
		AddReportEntry("chaos: throttled", report)
		GinkgoWriter.Println("Chaos: " + report)

		Expect(throttled).To(BeNumerically(">", 0), "the API server throttled none of the operator's requests")
		Expect(tooSoon).To(BeNumerically("<=", allowed), "requests asked again within a second of a 429: the operator does not back off")
		Expect(converged).To(BeNumerically("<=", throttledConvergence), "the burst's convergence while throttled")
		expectNoExitSince(exits)
		expectOwnedOnce(ctx, namespace, perKind, created)
	})
})

// throttledConvergence bounds the time from a burst to every resource
// Ready while the operator is throttled. It is measured, not derived: the
// API server raises its Retry-After (up to 32 s) while it keeps dropping
// requests, so how long client-go's retries wait is up to it, and the spec
// follows the outages, whose informer back-offs may still run
// (docs/reliability.md has the runs).
const throttledConvergence = 3 * time.Minute

// recovery is how the cluster and the operator came back from an outage.
type recovery struct {
	component string
	down      time.Duration
	// killed and back are when the component was killed and answered
	// again; controllers, when the controller manager and the scheduler
	// both led again after the kill (zero if neither left); restarted,
	// when the cluster last started either again after the kill, once its
	// restart back-off was waited out (zero if neither exited).
	killed, back, controllers, restarted time.Time
	// owned and converged are the times from back to every owned object
	// made and to every resource Ready.
	owned, converged time.Duration
	// resources is how many there were, inProgress how many were not yet
	// Ready when the component was killed.
	resources, inProgress int
}

// outage kills component for down while the operator reconciles objs, the
// burst of perKind of each kind in namespace, starts it again and waits
// until every object they own is made and every one of them is Ready.
func outage(ctx context.Context, controlPlane *cluster.Cluster, component string, down time.Duration,
	namespace string, perKind int, objs []kube.Object,
) recovery {
	rec := recovery{component: component, down: down, resources: len(objs)}
	By(fmt.Sprintf("killing %s for %s while the operator reconciles them", component, down))
	freshBackOff(controlPlane)
	rec.inProgress = notReadyIn(ctx, namespace)
	rec.killed = time.Now()
	Expect(controlPlane.Kill(component)).To(Succeed())
	time.Sleep(down)
	Expect(controlPlane.Restart(ctx, component)).To(Succeed())
	rec.back = time.Now()

	// kwok's restart may take most of a minute when it must be done
	// again; the operator's objects do not wait for it, nor does their
	// count.
	owned := ownedAt(ctx, namespace, perKind)
	restartKwok(ctx, controlPlane)
	expectOwnedCount(ctx, namespace, perKind)
	rec.owned = (<-owned).Sub(rec.back)
	expectAllReady(ctx, objs)
	rec.converged = time.Since(rec.back)
	rec.controllers = controlPlaneLed(ctx, rec.killed)
	rec.restarted = controlPlaneRestarted(controlPlane, rec.killed)
	return rec
}

// freshBackOff has the controller manager and the scheduler meet the fault
// with the kubelet's restart back-off of a node whose control plane ran 10
// minutes since its last exit: the outages of the specs before, run
// back to back in a random order, would otherwise add minutes of back-off
// to this one's recovery, which is printed and not bounded.
func freshBackOff(controlPlane *cluster.Cluster) {
	Expect(controlPlane.ResetRestartBackOff()).To(Succeed())
}

// controlPlaneRestarted is when the cluster last started the controller
// manager or the scheduler again since since, or zero if it did not.
func controlPlaneRestarted(controlPlane *cluster.Cluster, since time.Time) time.Time {
	var restarted time.Time
	for _, name := range []string{cluster.ControllerManager, cluster.Scheduler} {
		started, err := controlPlane.Started(name)
		Expect(err).NotTo(HaveOccurred())
		if started.After(since) && started.After(restarted) {
			restarted = started
		}
	}
	return restarted
}

// restartKwok starts kwok again once the control plane is back. A kubelet
// retries by itself what failed in the outage; kwok v0.8.0 gives a pod's
// next stage up when the API server answers 500 (etcd gone) or drops the
// connection, and plays it again only when the pod changes. Restarted, it
// goes over every pod again without changing one, which would wake the
// operator. Each start takes its nodes' leases under a new identity, and
// plays no pod of a node before it holds its lease: the dead run's leases
// go first, so that it takes them at once, as a restarted kubelet renews
// its own, rather than after they expire (40 s).
func restartKwok(ctx context.Context, controlPlane *cluster.Cluster) {
	nodes := fakeNodes(ctx)
	for restarts := 1; ; restarts++ {
		Expect(controlPlane.Kill(cluster.Kwok)).To(Succeed())
		for _, node := range nodes {
			lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: corev1.NamespaceNodeLease, Name: node}}
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, lease))).To(Succeed())
		}
		Expect(controlPlane.Restart(ctx, cluster.Kwok)).To(Succeed())
		// After etcd's return the API server's watch cache may still list
		// a deleted Lease: kwok then updates it, with its UID as a
		// precondition, for good, and takes none.
		if !leasesTaken(ctx, nodes) {
			Expect(restarts).To(BeNumerically("<", 3), "kwok took no lease of its nodes after %d restarts", restarts)
			GinkgoWriter.Printf("kwok: restarted again, as it took no lease of its nodes\n")
			continue
		}
		// kwok v0.8.0 goes over a node's pods when it takes its lease, but
		// skips each one its cache does not show the lease held for yet.
		missed := unplayedPods(ctx, nodes, time.Now())
		if len(missed) == 0 {
			return
		}
		Expect(restarts).To(BeNumerically("<", 3), "kwok played no stage of %v after %d restarts", missed, restarts)
		GinkgoWriter.Printf("kwok: restarted again, as it played no stage of %v\n", missed)
	}
}

// leasesTaken waits up to 30 s until every node's Lease exists, and tells
// whether they all do.
func leasesTaken(ctx context.Context, nodes []string) bool {
	return pollUntil(30*time.Second, time.Second, func() bool {
		for _, node := range nodes {
			err := k8sClient.Get(ctx, client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: node}, &coordinationv1.Lease{})
			Expect(client.IgnoreNotFound(err)).To(Succeed())
			if err != nil {
				return false
			}
		}
		return true
	})
}

// pollUntil calls done every interval until it returns true or within has
// passed, and tells whether it returned true. The chaos specs wait so where
// running out of time is an outcome to report, not a failure.
func pollUntil(within, interval time.Duration, done func() bool) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(interval) {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// fakeNodes are the names of the nodes kwok plays.
func fakeNodes(ctx context.Context) []string {
	nodes := &corev1.NodeList{}
	Expect(k8sClient.List(ctx, nodes, client.MatchingLabels{"type": "kwok"})).To(Succeed())
	Expect(nodes.Items).NotTo(BeEmpty(), "no kwok node")
	names := make([]string, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	return names
}

// unplayedPods waits up to 20 s until no pod scheduled to nodes before
// since is still pending, and names those that are.
func unplayedPods(ctx context.Context, nodes []string, since time.Time) []string {
	var pending []string
	pollUntil(20*time.Second, time.Second, func() bool {
		pending = nil
		for _, node := range nodes {
			pods := &corev1.PodList{}
			Expect(k8sClient.List(ctx, pods, client.MatchingFields{"spec.nodeName": node})).To(Succeed())
			for _, p := range pods.Items {
				if p.Status.Phase == corev1.PodPending && p.DeletionTimestamp == nil && boundAt(&p).Before(since) {
					pending = append(pending, p.Namespace+"/"+p.Name)
				}
			}
		}
		return len(pending) == 0
	})
	return pending
}

// boundAt is when the scheduler bound the pod to its node, or when it was
// made, for a pod made with its node.
func boundAt(pod *corev1.Pod) time.Time {
	if c := podCondition(pod, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return pod.CreationTimestamp.Time
}

func (r recovery) String() string {
	return fmt.Sprintf("%s killed for %s with %d of %d resources not yet Ready, back (ready) %.1fs after the kill; from its return, every owned object was made at %.1fs, "+
		"the controller manager or the scheduler was last started again at %s, both led again at %s, and all resources were Ready at %.1fs",
		r.component, r.down, r.inProgress, r.resources, r.back.Sub(r.killed).Seconds(), r.owned.Seconds(),
		sinceOrNone(r.back, r.restarted), sinceOrNone(r.back, r.controllers), r.converged.Seconds())
}

// expectWithinBounds checks that the outage began while resources were
// still being made, that every owned object was made within recoverWithin
// of the component's return, that the control plane led again within
// controlPlaneWithin of the later of the return and its last restart, and
// that every resource was Ready within recoverWithin of the control
// plane's return. Pods are made, scheduled and counted ready only once the
// controller manager and the scheduler lead again; one that the outage
// made exit is started again after the kubelet's restart back-off, which
// doubles with each exit and is printed, not bounded.
func (r recovery) expectWithinBounds() {
	GinkgoHelper()
	By("killed mid-burst; every owned object made within 30 s of the return, the control plane leading within 30 s of its own, every resource Ready within 30 s of that")
	Expect(r.inProgress).To(BeNumerically(">", 0), "every resource was Ready when %s was killed: the outage hit no work", r.component)
	Expect(r.owned).To(BeNumerically("<=", recoverWithin), "every owned object made after the return")
	if !r.controllers.IsZero() {
		Expect(r.controllers.Sub(later(r.back, r.restarted))).To(BeNumerically("<=", controlPlaneWithin),
			"the controller manager and the scheduler leading again after the return, or after their restart if later")
	}
	Expect(r.converged-max(0, r.controllers.Sub(r.back))).To(BeNumerically("<=", recoverWithin), "all Ready after the control plane's return")
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// controlPlaneWithin bounds the time from a control-plane component's
// return, or from the later restart of the controller manager or the
// scheduler, to both leading again: a new run takes a lease that its dead
// predecessor stopped renewing before the outage ended.
const controlPlaneWithin = 30 * time.Second

// recoverWithin bounds the time from a control-plane component's return to
// every owned object made, and from the control plane's return (the
// controller manager and the scheduler leading again) to every resource
// Ready: the operator's informers try again every second (package
// reconnect), and its leader, restarted after a lost lease, takes it back
// as the same identity.
const recoverWithin = 30 * time.Second

// readyWithin bounds the time from a fault's end (the killing stopped, the
// cut healed, the storm over) to every resource Ready.
const readyWithin = time.Minute

// expectReadyWithin checks converged, the time from a fault's end to every
// resource Ready, against readyWithin.
func expectReadyWithin(converged time.Duration, fault string) {
	GinkgoHelper()
	Expect(converged).To(BeNumerically("<=", readyWithin), "every resource Ready after %s", fault)
}

// convergeWithin is how long the chaos specs wait for every resource to be
// Ready: longer than the bounds they assert, so that the time it took is
// reported when it misses them, and than the controller manager's longest
// restart back-off (5 minutes) and lease. An object that never converges
// fails the spec.
const convergeWithin = 7 * time.Minute

// expectAllReady waits until every obj is Ready for its generation, and
// names each that is not, with its Ready condition, when it gives up.
func expectAllReady(ctx context.Context, objs []kube.Object) {
	Eventually(ctx, func(g Gomega) {
		var notReady []string
		for _, obj := range objs {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			if why := unready(obj); why != "" {
				notReady = append(notReady, fmt.Sprintf("%T %s: %s", obj, obj.GetName(), why))
			}
		}
		g.Expect(notReady).To(BeEmpty(), "%d of %d resources not Ready", len(notReady), len(objs))
	}).WithTimeout(convergeWithin).WithPolling(2 * time.Second).Should(Succeed())
}

// unready says why obj is not Ready for its generation, or "" if it is.
func unready(obj kube.Object) string {
	ready := meta.FindStatusCondition(obj.GetConditions(), seedv1alpha1.ConditionReady)
	switch {
	case ready == nil:
		return "no Ready condition"
	case ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != obj.GetGeneration():
		return fmt.Sprintf("Ready=%s for generation %d of %d, %s: %s",
			ready.Status, ready.ObservedGeneration, obj.GetGeneration(), ready.Reason, ready.Message)
	}
	return ""
}

// notReadyIn counts the custom resources of namespace, of every kind, not
// Ready for their generation and not being deleted: the work in progress.
func notReadyIn(ctx context.Context, namespace string) int {
	n := 0
	for _, list := range []client.ObjectList{
		&seedv1alpha1.EchoList{}, &seedv1alpha1.ScheduledEchoList{}, &seedv1alpha1.ImmortalContainerList{},
		&seedv1alpha1.WebServerList{}, &seedv1alpha1.DemoVolumeList{},
	} {
		Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		Expect(meta.EachListItem(list, func(item runtime.Object) error {
			if obj, _ := item.(kube.Object); obj.GetDeletionTimestamp() == nil && unready(obj) != "" {
				n++
			}
			return nil
		})).To(Succeed())
	}
	return n
}

// burst creates perKind copies of every kind's sample in namespace, as
// fast as the API server takes them, and returns them.
func burst(ctx context.Context, namespace string, perKind int) []kube.Object {
	samples, err := testenv.Samples()
	Expect(err).NotTo(HaveOccurred())
	objs := make([]kube.Object, 0, len(samples)*perKind)
	for i := range perKind {
		for _, sample := range samples {
			obj := typed(sample)
			obj.SetNamespace(namespace)
			obj.SetName(fmt.Sprintf("%s-%d", sample.GetName(), i))
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
			objs = append(objs, obj)
		}
	}
	return objs
}

// expectOwnedCount waits until each custom resource in namespace has one
// of each object it owns (by the kind its labels name).
func expectOwnedCount(ctx context.Context, namespace string, perKind int) {
	Eventually(ctx, func(g Gomega) {
		for _, o := range ownedKinds() {
			g.Expect(count(ctx, o.list, namespace, client.MatchingLabels{kube.LabelName: o.kind})).To(Equal(perKind), "%T of %s", o.list, o.kind)
		}
	}).WithTimeout(convergeWithin).WithPolling(time.Second).Should(Succeed())
}

// ownedAt tells, from a poll every second that starts at once, when
// namespace first held perKind of each object the kinds own, or, if it did
// not before expectOwnedCount's timeout, the end of that timeout. It reads
// through the API server alone, so that the bound on it is not the time of
// the steps the spec takes meanwhile.
func ownedAt(ctx context.Context, namespace string, perKind int) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(convergeWithin)
		for ; time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(time.Second) {
			if ownedAll(ctx, namespace, perKind) {
				break
			}
		}
		at <- time.Now()
	}()
	return at
}

// ownedAll tells whether namespace holds perKind of each object the kinds
// own; a list that fails counts as not yet.
func ownedAll(ctx context.Context, namespace string, perKind int) bool {
	for _, o := range ownedKinds() {
		err := k8sClient.List(ctx, o.list, client.InNamespace(namespace), client.MatchingLabels{kube.LabelName: o.kind})
		if err != nil || meta.LenList(o.list) != perKind {
			return false
		}
	}
	return true
}

// ownedKinds are the objects the kinds own: each of its list, by the kind
// its labels name.
func ownedKinds() []ownedKind {
	return []ownedKind{
		{&appsv1.DeploymentList{}, "webserver"},
		{&corev1.ServiceList{}, "webserver"},
		{&batchv1.JobList{}, "echo"},
		{&batchv1.CronJobList{}, "scheduledecho"},
		{&corev1.PersistentVolumeClaimList{}, "demovolume"},
		{&corev1.PodList{}, "immortalcontainer"},
	}
}

type ownedKind struct {
	list client.ObjectList
	kind string
}

// lastAcquired is the last time a replica's run took the lead since since,
// or zero if none did.
func lastAcquired(since time.Time) time.Time {
	var last time.Time
	for _, r := range replicas {
		for _, run := range r.runs() {
			if run.acquired.After(since) && run.acquired.After(last) {
				last = run.acquired
			}
		}
	}
	return last
}

// controlPlaneLed is when the later of kube-controller-manager and
// kube-scheduler took its lead since since, or zero if neither did.
func controlPlaneLed(ctx context.Context, since time.Time) time.Time {
	var led time.Time
	for _, name := range []string{"kube-controller-manager", "kube-scheduler"} {
		lease := &coordinationv1.Lease{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: name}, lease)).To(Succeed())
		if acquired := lease.Spec.AcquireTime; acquired != nil && acquired.After(since) && acquired.After(led) {
			led = acquired.Time
		}
	}
	return led
}

// sinceOrNone says how long after start t was, or that it did not happen.
func sinceOrNone(start, t time.Time) string {
	if t.IsZero() {
		return "(none)"
	}
	return fmt.Sprintf("%.1fs", t.Sub(start).Seconds())
}

// expectOwnedOnce checks that each custom resource in namespace has one of
// each object it owns (by the kind its labels name), that no
// ImmortalContainer's pod was started twice, and that the watches of
// created saw no owned object made twice.
func expectOwnedOnce(ctx context.Context, namespace string, perKind int, created *creations) {
	for _, o := range ownedKinds() {
		Expect(count(ctx, o.list, namespace, client.MatchingLabels{kube.LabelName: o.kind})).To(Equal(perKind), "%T of %s", o.list, o.kind)
	}
	ics := &seedv1alpha1.ImmortalContainerList{}
	Expect(k8sClient.List(ctx, ics, client.InNamespace(namespace))).To(Succeed())
	for _, ic := range ics.Items {
		Expect(ic.Status.PodsStarted).To(BeEquivalentTo(1), "pods started for %s", ic.Name)
	}
	created.expectEachCreatedOnce(ctx, namespace)
}

// errorBound is the most reconcile errors objects can cost over an outage
// when each is retried by its own back-off only: one object's failures in
// a row over the outage and the longest wait after it, for each object,
// and one more each for what a stale cache makes fail once after the
// return (a conflict).
func errorBound(objects int, outage time.Duration) float64 {
	limiter := kube.ControllerOptions().RateLimiter
	var item reconcile.Request
	failures := 0
	for elapsed := time.Duration(0); elapsed < outage+kube.RetryMaxDelay; failures++ {
		elapsed += limiter.When(item)
	}
	return float64(objects * (failures + 1))
}

// counted sums what count reads from the metrics of every replica.
func counted(ctx context.Context, scrape func(context.Context, *replica) testenv.Metrics, count func(testenv.Metrics) float64) float64 {
	total := 0.0
	for _, r := range replicas {
		total += count(scrape(ctx, r))
	}
	return total
}
