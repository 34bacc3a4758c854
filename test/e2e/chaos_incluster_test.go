//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/seed-operators/seed-operator/test/cluster"
)

// The outage again, with the operator deployed from its image on the real
// node, whose kubelet restarts the leader's container when it exits on
// its lost lease, with the token it has mounted and no API server to ask.
var _ = Describe("Chaos in the cluster", Label("chaos"), Ordered, Serial, func() {
	const perKind = 8
	var controlPlane *cluster.Cluster

	BeforeAll(func(ctx SpecContext) {
		config, err := cluster.ConfigFromEnv()
		Expect(err).NotTo(HaveOccurred(), "the cluster's configuration: run `make test-chaos`")
		controlPlane = cluster.New(config)
		deployInPlaceOfReplicas(ctx)
	})

	It("recovers from a kube-apiserver outage with its pods restarted by the kubelet, within 30 s of the return, creating nothing twice",
		func(ctx SpecContext) {
			// The outage is to find a pod leading: one that cannot renew
			// exits. A CI run once started it while no pod held the Lease,
			// and no container restarted.
			expectPodLeading(ctx)
			namespace := restrictedNamespace(ctx, "chaos-incluster")
			restartsBefore := managerRestarts(ctx)
			created := watchCreations(ctx, namespace)
			objs := burst(ctx, namespace, perKind)
			rec := outage(ctx, controlPlane, cluster.APIServer, 20*time.Second, namespace, perKind, objs)
			restarts := managerRestarts(ctx) - restartsBefore
			report := fmt.Sprintf("%s; the kubelet restarted the operator's containers %d times", rec, restarts)
			AddReportEntry("chaos in the cluster", report)
			GinkgoWriter.Println("Chaos in the cluster: " + report)

			rec.expectWithinBounds()
			By("the leader's container restarted by the kubelet, both pods ready, one leading")
			Expect(restarts).To(BeNumerically(">=", 1), "no container of the operator left on its lost lease")
			Eventually(ctx, func(g Gomega) {
				pods := managerPods(ctx, operatorNamespace)
				g.Expect(pods).To(HaveLen(2))
				for _, pod := range pods {
					g.Expect(pod.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())), "pod %s", pod.Name)
				}
				g.Expect(leaderPod(ctx, g, operatorNamespace)).NotTo(BeEmpty())
			}).Should(Succeed())
			expectOwnedOnce(ctx, namespace, perKind, created)
		})
})

// managerRestarts is how many times the kubelet restarted the containers
// of the manager's pods.
func managerRestarts(ctx context.Context) int {
	n := 0
	for _, pod := range managerPods(ctx, operatorNamespace) {
		for _, status := range pod.Status.ContainerStatuses {
			n += int(status.RestartCount)
		}
	}
	return n
}
