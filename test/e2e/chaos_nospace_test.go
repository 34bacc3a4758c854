//go:build e2e && chaos

package e2e

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// The out-of-space spec raises etcd's NOSPACE alarm while the operator's
// replicas reconcile a burst of every kind: every write is refused, reads
// are not, as when the database reaches its quota.
var _ = Describe("Out of space", Label("chaos"), Serial, func() {
	const (
		perKind = 24
		fullFor = 30 * time.Second
		// The end of the alarm over which the replicas' request rate is
		// measured: by then the leader has given the lead up.
		quietFor = 10 * time.Second
	)

	It("keeps the operator quiet while etcd refuses writes, and converges with nothing lost once the alarm is disarmed", func(ctx SpecContext) {
		config, err := cluster.ConfigFromEnv()
		Expect(err).NotTo(HaveOccurred(), "the cluster's configuration: run `make test-chaos`")
		controlPlane := cluster.New(config)
		namespace := restrictedNamespace(ctx, "chaos-nospace")
		created := watchCreations(ctx, namespace)
		exits := exitCount()
		objs := burst(ctx, namespace, perKind)

		By(fmt.Sprintf("raising etcd's NOSPACE alarm for %s while the operator reconciles them", fullFor))
		freshBackOff(controlPlane)
		inProgress := notReadyIn(ctx, namespace)
		audit := testenv.StartAuditLog()
		raised := time.Now()
		Expect(controlPlane.NoSpace(ctx, true)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(controlPlane.NoSpace(ctx, false)).To(Succeed()) })
		refusal := k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "nospace-", Namespace: namespace}})
		Expect(refusal).To(MatchError(ContainSubstring("database space exceeded")), "a write while the alarm is raised")
		time.Sleep(time.Until(raised.Add(fullFor)))
		// The requests counted as made while the alarm was raised end here:
		// those answered while it is being disarmed may succeed.
		lifting := time.Now()
		Expect(controlPlane.NoSpace(ctx, false)).To(Succeed())
		disarmed := time.Now()
		during := audit.Events(testenv.OperatorUser)

		restartKwok(ctx, controlPlane)
		expectAllReady(ctx, objs)
		converged := time.Since(disarmed)
		controllers := controlPlaneLed(ctx, raised)
		restarted := controlPlaneRestarted(controlPlane, raised)

		quietFrom := lifting.Add(-quietFor)
		var refused, quiet int
		for _, e := range during {
			if !e.Received.Time.Before(lifting) {
				continue
			}
			if e.Code() >= 500 && e.Writes() {
				refused++
			}
			if e.Received.After(quietFrom) {
				quiet++
			}
		}
		exited := exitCount() - exits
		report := fmt.Sprintf("NOSPACE raised for %s with %d of %d resources not yet Ready: %d of the operator's writes refused, %d replica runs exited, %d requests in the alarm's last %s (the bound: %d); "+
			"from the disarm, the controller manager or the scheduler was last started again at %s, both led again at %s, and all resources were Ready at %.1fs",
			fullFor, inProgress, len(objs), refused, exited, quiet, quietFor, leaseRequestBound(quietFor),
			sinceOrNone(disarmed, restarted), sinceOrNone(disarmed, controllers), converged.Seconds())
		AddReportEntry("chaos: out of space", report)
		GinkgoWriter.Println("Out of space: " + report)

		Expect(inProgress).To(BeNumerically(">", 0), "every resource was Ready when the alarm was raised: it hit no work")
		By("the writes refused, and said so in the operator's log")
		Expect(refused).To(BeNumerically(">", 0), "no write of the operator's refused while the alarm was raised")
		Expect(replicaLogs()).To(ContainSubstring("database space exceeded"))
		By("no spin: once the lead is given up, only the replicas' tries to take it")
		Expect(quiet).To(BeNumerically("<=", leaseRequestBound(quietFor)), "requests in the alarm's last %s", quietFor)
		By("the leader exits once, as on any lost lease; nothing else exits")
		Expect(exited).To(BeNumerically("<=", 1), "replica runs that exited")
		expectOneLeaderAtATime()

		By("the control plane leading within 30 s of the disarm or of its restart, if later; every resource Ready within a minute of that, each object made once")
		if !controllers.IsZero() {
			Expect(controllers.Sub(later(disarmed, restarted))).To(BeNumerically("<=", controlPlaneWithin),
				"the controller manager and the scheduler leading again after the disarm, or after their restart if later")
		}
		expectReadyWithin(converged-max(0, controllers.Sub(disarmed)), "the alarm disarmed and the control plane leading")
		expectOwnedOnce(ctx, namespace, perKind, created)
	})
})

// leaseRequestBound is the most requests the replicas make over window
// while none leads and none can take the lead: each tries every retry
// period, with a read of the Lease and a refused update.
func leaseRequestBound(window time.Duration) int {
	return len(replicas) * 2 * (int(window/kube.DefaultRetryPeriod) + 1)
}

// replicaLogs are the logs of every replica this suite started.
func replicaLogs() string {
	var logs strings.Builder
	for _, r := range started {
		logs.WriteString(r.log())
	}
	return logs.String()
}
