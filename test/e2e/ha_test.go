//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("High availability", Serial, func() {
	const (
		// Of each kind, created one after the other; the leader is killed
		// after a third of them.
		perKind   = 15
		killAfter = perKind / 3
	)

	It("hands the lead to the other replica within 20 s when the leader's node is lost during a burst of creates, and creates nothing twice",
		func(ctx SpecContext) {
			namespace := restrictedNamespace(ctx, "e2e-ha")
			old := leader(ctx)
			oldHolder := leaseHolderNow(ctx)

			var (
				wg     sync.WaitGroup
				killed = make(chan time.Time, 1)
				objs   []kube.Object
				mu     sync.Mutex
			)
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				for i := range perKind {
					if i == killAfter {
						killed <- old.lose()
					}
					ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: namespace}}
					ic := &seedv1alpha1.ImmortalContainer{
						ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%d", i), Namespace: namespace},
						Spec: seedv1alpha1.ImmortalContainerSpec{
							Image: "docker.io/library/busybox:1.37.0", Command: []string{"sleep", "infinity"}, RunAsUser: ptr.To[int64](65534),
						},
					}
					for _, obj := range []kube.Object{ws, ic} {
						Expect(k8sClient.Create(ctx, obj)).To(Succeed())
						mu.Lock()
						objs = append(objs, obj)
						mu.Unlock()
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()

			killedAt := <-killed
			takeover := takeoverAfter(ctx, killedAt)
			Expect(leaseHolderNow(ctx)).NotTo(Equal(oldHolder), "the lead went to the other replica")
			wg.Wait()
			AddReportEntry("takeover", takeover.Round(10*time.Millisecond).String())
			GinkgoWriter.Printf("Takeover: the other replica led %s after the leader's node was lost\n", takeover.Round(10*time.Millisecond))
			expectTakeoverBound(takeover)

			for _, obj := range objs {
				expectReady(ctx, obj)
			}
			readyAt := time.Since(killedAt)
			AddReportEntry("all Ready after the kill", readyAt.Round(10*time.Millisecond).String())
			GinkgoWriter.Printf("Every one of %d resources was Ready %s after the leader's node was lost\n", len(objs), readyAt.Round(10*time.Millisecond))

			By("nothing created twice")
			Expect(count(ctx, &appsv1.DeploymentList{}, namespace)).To(Equal(perKind))
			Expect(count(ctx, &corev1.ServiceList{}, namespace)).To(Equal(perKind))
			Expect(count(ctx, &corev1.PodList{}, namespace, client.MatchingLabels{kube.LabelName: "immortalcontainer"})).To(Equal(perKind))
			for _, obj := range objs {
				if ic, ok := obj.(*seedv1alpha1.ImmortalContainer); ok {
					Expect(ic.Status.PodsStarted).To(BeEquivalentTo(1), "pods started for %s", ic.Name)
				}
			}
			// The killed leader may have lost events it had not sent yet, so
			// each creation is recorded at most once, never as a recreation.
			events := &eventsv1.EventList{}
			Expect(k8sClient.List(ctx, events, client.InNamespace(namespace))).To(Succeed())
			created := map[string]int32{}
			for _, e := range events.Items {
				Expect(e.Reason).NotTo(Equal(apply.ReasonRecreated), "%s %s: %s", e.Regarding.Kind, e.Regarding.Name, e.Note)
				if e.Reason == apply.ReasonCreated {
					created[e.Note] += testenv.Occurrences(e)
				}
			}
			for note, n := range created {
				Expect(n).To(BeEquivalentTo(1), "%q recorded %d times", note, n)
			}

			By("one leader at a time, and a new replica in the lost one's place, as its Deployment would start")
			expectOneLeaderAtATime()
			replicas = slices.DeleteFunc(replicas, func(r *replica) bool { return r == old })
			addReplica()
		})
})

// takeoverBound is how soon after the leader is killed another replica
// leads. A follower takes the Lease at its first try after the lease
// duration has passed since the last change it saw, and it saw the
// leader's last renewal at one try at most after it: the lease duration
// and two times between tries, each up to a retry period jittered by
// client-go, plus requests' latency.
const takeoverBound = 20 * time.Second

// expectTakeoverBound checks a takeover against takeoverBound, and that the
// default timings leave room in it for requests.
func expectTakeoverBound(takeover time.Duration) {
	jittered := time.Duration((1 + leaderelection.JitterFactor) * float64(kube.DefaultRetryPeriod))
	Expect(kube.DefaultLeaseDuration+2*jittered).To(BeNumerically("<=", takeoverBound-1500*time.Millisecond),
		"the default timings leave less than 1.5 s of the bound for requests")
	Expect(takeover).To(BeNumerically("<=", takeoverBound), "the takeover after a kill")
}

// takeoverAfter waits until a replica leads again after the leader was
// killed at killedAt, and is how long after that was: when the Lease was
// first renewed after the kill, which the dead cannot do. A replica that
// keeps its identity across restarts, as a pod keeps its name, may take
// its own Lease back: that is a takeover too.
func takeoverAfter(ctx context.Context, killedAt time.Time) time.Duration {
	var takeover time.Duration
	Eventually(ctx, func(g Gomega) {
		lease := &coordinationv1.Lease{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: leaseName}, lease)).To(Succeed())
		g.Expect(ptr.Deref(lease.Spec.HolderIdentity, "")).NotTo(BeEmpty())
		g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
		g.Expect(lease.Spec.RenewTime.Time).To(BeTemporally(">", killedAt), "no renewal of the Lease since the kill")
		takeover = lease.Spec.RenewTime.Sub(killedAt)
	}).WithTimeout(time.Minute).WithPolling(50 * time.Millisecond).Should(Succeed())
	return takeover
}

// leaseHolderNow is the identity holding the Lease now.
func leaseHolderNow(ctx context.Context) string {
	var holder string
	Eventually(ctx, func(g Gomega) {
		holder = leaseHolder(ctx, g, operatorNamespace)
		g.Expect(holder).NotTo(BeEmpty())
	}).Should(Succeed())
	return holder
}

// count is how many objects of a list's kind there are in a namespace.
func count(ctx context.Context, list client.ObjectList, namespace string, opts ...client.ListOption) int {
	Expect(k8sClient.List(ctx, list, append(opts, client.InNamespace(namespace))...)).To(Succeed())
	return meta.LenList(list)
}
