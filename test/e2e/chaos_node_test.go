//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/test/cluster"
)

// The real node's kubelet, then its containerd, is killed and started
// again while a WebServer serves its page and an ImmortalContainer runs
// there, as an upgrade or a crash of either does on a node people run.
// Their pods' containers run on under their shims: nothing ended, so
// nothing may be made again.
var _ = Describe("Node agents restarted", Label("chaos"), Serial, func() {
	// How long each agent stays down: less than the controller manager's
	// node-monitor grace period, as a restart is.
	const down = 10 * time.Second

	It("keeps serving the page and the ImmortalContainer's pod while the kubelet, then containerd, restart, making nothing again",
		func(ctx SpecContext) {
			config, err := cluster.ConfigFromEnv()
			Expect(err).NotTo(HaveOccurred(), "the cluster's configuration: run `make test-chaos`")
			node := cluster.New(config)
			namespace := realNamespace(ctx, "chaos-node")

			ws := readyWebServer(ctx, namespace, "web", func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](2) })
			ic := &seedv1alpha1.ImmortalContainer{
				ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "lasting"},
				Spec: seedv1alpha1.ImmortalContainerSpec{
					Image: images["busybox"], Command: []string{"sh", "-c", "sleep 3600"}, RunAsUser: ptr.To[int64](65534),
				},
			}
			Expect(k8sClient.Create(ctx, ic)).To(Succeed())
			expectReady(ctx, ic)
			before := podUIDs(ctx, namespace)
			Expect(before).To(HaveLen(3), "the WebServer's two pods and the ImmortalContainer's")

			poller := pollPage(ctx, client.ObjectKeyFromObject(ws), 100*time.Millisecond)

			agents := []string{cluster.Kubelet, cluster.Containerd}
			backs := make([]string, 0, len(agents))
			for _, agent := range agents {
				By(fmt.Sprintf("killing %s for %s", agent, down))
				killed := time.Now()
				Expect(node.Kill(agent)).To(Succeed())
				time.Sleep(down)
				Expect(node.Restart(ctx, agent)).To(Succeed())
				back := time.Now()
				expectNodeReady(ctx)
				backs = append(backs, fmt.Sprintf("%s back %.1fs after the kill, its node Ready %.1fs after that",
					agent, back.Sub(killed).Seconds(), time.Since(back).Seconds()))
			}
			By("the resources Ready again, after a few more answers")
			expectReady(ctx, ws)
			expectReady(ctx, ic)
			requests := func() int { sent, _, _ := poller.result(); return sent }
			sent := requests()
			Eventually(requests).Should(BeNumerically(">=", sent+20))
			poller.stop()

			sent, failures, _ := poller.result()
			report := fmt.Sprintf("%s; %d requests, %d failed", strings.Join(backs, "; "), sent, len(failures))
			AddReportEntry("node agents restarted", report)
			GinkgoWriter.Println("Node agents restarted: " + report)
			Expect(failures).To(BeEmpty(), "requests for the page that failed")
			Expect(podUIDs(ctx, namespace)).To(Equal(before), "pods made again, though none ended")
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ic), ic)).To(Succeed())
			Expect(ic.Status.PodsStarted).To(BeEquivalentTo(1), "the ImmortalContainer's pods started")
			for _, s := range podStatuses(ctx, namespace) {
				Expect(s.RestartCount).To(BeZero(), "container %s started again", s.Name)
			}
		})
})

// podUIDs are the UIDs of namespace's pods, by name.
func podUIDs(ctx context.Context, namespace string) map[string]types.UID {
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace))).To(Succeed())
	uids := map[string]types.UID{}
	for _, p := range pods.Items {
		uids[p.Name] = p.UID
	}
	return uids
}

// podStatuses are the statuses of the containers of namespace's pods.
func podStatuses(ctx context.Context, namespace string) []corev1.ContainerStatus {
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace))).To(Succeed())
	var statuses []corev1.ContainerStatus
	for _, p := range pods.Items {
		statuses = append(statuses, p.Status.ContainerStatuses...)
	}
	return statuses
}

// expectNodeReady waits until the real node is Ready.
func expectNodeReady(ctx context.Context) {
	Eventually(ctx, func(g Gomega) corev1.ConditionStatus {
		n := &corev1.Node{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: realNodeName(ctx)}, n)).To(Succeed())
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status
			}
		}
		return corev1.ConditionUnknown
	}).WithTimeout(time.Minute).Should(Equal(corev1.ConditionTrue))
}
