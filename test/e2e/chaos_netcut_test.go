//go:build e2e && chaos

package e2e

import (
	"fmt"
	"net/url"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// The network cut spec cuts the leading replica off from the API server,
// through a proxy between them, while the other replica still reaches it.
var _ = Describe("Network cut", Label("chaos"), Serial, func() {
	const (
		// How long the other replica waits for a Lease that is not renewed.
		leaseDuration = kube.DefaultLeaseDuration
		cutFor        = 30 * time.Second
		perKind       = 8
	)

	It("makes a leader cut off from the API server give the lead up before the other replica takes it, and converges once the cut heals",
		func(ctx SpecContext) {
			proxy := startCutProxy(apiServerAddress())
			DeferCleanup(proxy.close)

			By("two replicas, the leader behind a proxy the spec can cut")
			for _, r := range replicas {
				r.stop()
			}
			replicas = nil
			DeferCleanup(func() {
				for _, r := range replicas {
					r.stop()
				}
				replicas = nil
				addReplica()
				addReplica()
			})
			viaProxy := "SERVER=" + proxy.address()
			// The stopped replicas gave the Lease up: the first to start leads.
			cut := addReplica(viaProxy)
			Eventually(cut.isLeader).Should(BeTrue(), "the replica behind the proxy does not lead:\n%s", cut.tail())
			other := addReplica()
			namespace := restrictedNamespace(ctx, "chaos-cut")
			created := watchCreations(ctx, namespace)
			objs := burst(ctx, namespace, perKind)

			By(fmt.Sprintf("cutting the leader off for %s while it reconciles them", cutFor))
			cutAt := time.Now()
			proxy.cutOff()
			Eventually(cut.exits).WithTimeout(leaseDuration).Should(HaveLen(1), "the cut replica still runs:\n%s", cut.tail())
			Expect(cut.log()).To(ContainSubstring("leader election lost"))
			exitedAt := cut.exits()[0]
			gaveUp := exitedAt.Sub(cutAt)

			Eventually(other.isLeader).WithTimeout(leaseDuration+30*time.Second).Should(BeTrue(), "the other replica does not lead:\n%s", other.tail())
			lease := &coordinationv1.Lease{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: leaseName}, lease)).To(Succeed())
			acquired := lease.Spec.AcquireTime.Time
			Expect(acquired).To(BeTemporally(">", exitedAt), "the other replica led before the cut one had stopped")

			time.Sleep(time.Until(cutAt.Add(cutFor)))
			proxy.heal()
			healed := time.Now()

			By("the cut replica, started again by its supervisor behind the proxy, following once the cut heals")
			expectAllReady(ctx, objs)
			converged := time.Since(healed)
			Consistently(cut.isLeader).WithTimeout(5*time.Second).Should(BeFalse(), "two replicas lead")
			Expect(cut.exits()).To(HaveLen(1), "the cut replica's restart exited:\n%s", cut.tail())
			Expect(other.exits()).To(BeEmpty(), "the leader exited:\n%s", other.tail())
			Expect(leaseHolderNow(ctx)).To(Equal(ptr.Deref(lease.Spec.HolderIdentity, "")))
			expectOneLeaderAtATime()
			expectOwnedOnce(ctx, namespace, perKind, created)

			report := fmt.Sprintf("leader cut off for %s: gave the lead up (exited) %.1fs after the cut; the other replica led %.1fs after the cut, %.1fs after the cut one stopped; all %d resources Ready %.1fs after the cut healed",
				cutFor, gaveUp.Seconds(), acquired.Sub(cutAt).Seconds(), acquired.Sub(exitedAt).Seconds(), len(objs), converged.Seconds())
			AddReportEntry("network cut", report)
			GinkgoWriter.Println("Network cut: " + report)
			expectReadyWithin(converged, "the cut healed")
		})
})

// apiServerAddress is the API server's host:port, as the suite's
// kubeconfig names it.
func apiServerAddress() string {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	Expect(err).NotTo(HaveOccurred())
	u, err := url.Parse(cfg.Host)
	Expect(err).NotTo(HaveOccurred())
	return u.Host
}
