//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// The random chaos spec kills a replica picked at random every 10 to 40 s,
// while a client creates, edits and deletes custom resources of every kind,
// for CHAOS_DURATION (make test-chaos CHAOS_DURATION=5m; CI runs a short
// form). CHAOS_SEED replays a run: the seed decides the client's steps, the
// replicas killed and the waits between kills, and is printed.
var _ = Describe("Random chaos", Label("chaos"), Serial, func() {
	It("keeps every live custom resource Ready with the objects it owns while random replicas are killed under a client's changes, and leaves no orphan",
		func(ctx SpecContext) {
			seed, duration := chaosSeed(), chaosDuration()
			AddReportEntry("chaos seed", seed)
			GinkgoWriter.Printf("Random chaos: seed %d (CHAOS_SEED=%d replays it), for %s\n", seed, seed, duration)
			c := newChurn(restrictedNamespace(ctx, "chaos-random"), seed)

			stop := make(chan struct{})
			churned := make(chan struct{})
			go func() {
				defer GinkgoRecover()
				defer close(churned)
				c.run(ctx, stop)
			}()
			kills := killRandomly(ctx, rand.New(rand.NewPCG(seed, 1)), duration, c.namespace)
			close(stop)
			Eventually(churned).WithTimeout(time.Minute).Should(BeClosed())

			start := time.Now()
			Expect(kills.leaders).To(BeNumerically(">=", 1), "no leader was killed: CHAOS_DURATION must leave time for a kill")
			AddReportEntry("takeovers", fmt.Sprint(kills.takeovers))
			GinkgoWriter.Printf("Random chaos: a replica led again %v after each leader's kill\n", kills.takeovers)
			for _, takeover := range kills.takeovers {
				expectTakeoverBound(takeover)
			}
			expectAllReady(ctx, c.live)
			converged := time.Since(start)
			report := fmt.Sprintf("%s, seed %d: %d replicas killed (%d leading), with %v resources not yet Ready at each kill; %d created, %d edited, %d deleted, %d Deployments scaled behind the operator's back; the %d live resources all Ready %.1fs after the client stopped",
				duration, seed, kills.total, kills.leaders, kills.inProgress, c.created, c.edited, c.deleted, c.scaled, len(c.live), converged.Seconds())
			AddReportEntry("random chaos", report)
			GinkgoWriter.Println("Random chaos: " + report)
			expectReadyWithin(converged, "the killing and the client stopped")
			Expect(kills.inProgress).NotTo(ContainElement(0), "a kill that hit no work in progress")

			By("every live resource owning exactly its objects, as its spec says, and nothing owned by a deleted one")
			expectOwnedExactly(ctx, c)
			By("the claims of the DemoVolumes deleted with Retain kept, those deleted with Delete gone unless no replica saw it")
			unseen := expectClaimsAsPolicy(ctx, c)
			AddReportEntry("claims kept as their deletion was unseen", fmt.Sprintf("%d of %d", unseen, len(c.claims)))
			GinkgoWriter.Printf("Random chaos: %d of %d deleted DemoVolumes' claims kept as no replica saw the deletion\n", unseen, len(c.claims))
			By("two replicas running again, one leading, never two at once")
			for _, r := range replicas {
				// Up to the longest restart back-off the kills can have caused.
				Eventually(r.managerPID).WithTimeout(5*time.Minute).ShouldNot(BeZero(), "replica %s:\n%s", r.name, r.tail())
			}
			Expect(leaseHolderNow(ctx)).NotTo(BeEmpty())
			expectOneLeaderAtATime()
		})
})

// chaosSeed is CHAOS_SEED, or a new seed when it is unset.
func chaosSeed() uint64 {
	if s := os.Getenv("CHAOS_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		Expect(err).NotTo(HaveOccurred(), "CHAOS_SEED")
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// chaosDuration is CHAOS_DURATION: how long replicas are killed for.
func chaosDuration() time.Duration {
	d, err := time.ParseDuration(os.Getenv("CHAOS_DURATION"))
	Expect(err).NotTo(HaveOccurred(), "CHAOS_DURATION must be a duration: run `make test-chaos`")
	return d
}

// killCount counts the replicas killRandomly killed, how long after each
// leader's kill another replica led, and how many resources were not yet
// Ready as each kill began.
type killCount struct {
	total, leaders int
	takeovers      []time.Duration
	inProgress     []int
}

// killRandomly kills the leader, then a replica picked by rng, every 10
// to 40 s for duration, each time once a resource of namespace is not yet
// Ready (or after 10 s), so that a kill lands while work is in progress.
// Each replica's supervisor starts it again, as the kubelet restarts a
// container that died, with its back-off: a replica still waiting to be
// started again when it is picked is left alone.
func killRandomly(ctx context.Context, rng *rand.Rand, duration time.Duration, namespace string) killCount {
	var k killCount
	deadline := time.Now().Add(duration)
	for {
		wait := 10*time.Second + time.Duration(rng.Int64N(int64(30*time.Second)))
		if time.Now().Add(wait).After(deadline) {
			return k
		}
		select {
		case <-ctx.Done():
			Fail("the spec's time ran out while killing replicas")
		case <-time.After(wait):
		}
		i := rng.IntN(len(replicas))
		if k.total == 0 {
			// The first kill hits the leader, so that every run, however
			// short, has the lead change hands mid-churn.
			i = slices.Index(replicas, leader(ctx))
		}
		r := replicas[i]
		if r.managerPID() == 0 {
			By(fmt.Sprintf("leaving %s, which waits out its restart back-off, alone", r.name))
			continue
		}
		inProgress := 0
		pollUntil(10*time.Second, 100*time.Millisecond, func() bool {
			inProgress = notReadyIn(ctx, namespace)
			return inProgress > 0
		})
		leading := r.isLeader()
		By(fmt.Sprintf("killing %s (leading: %t) with %d resources not yet Ready", r.name, leading, inProgress))
		killedAt := time.Now()
		r.kill()
		k.total++
		k.inProgress = append(k.inProgress, inProgress)
		if leading {
			k.leaders++
			k.takeovers = append(k.takeovers, takeoverAfter(ctx, killedAt).Round(10*time.Millisecond))
		}
	}
}

// churn is a client that creates, edits and deletes custom resources of
// every kind in one namespace, each step picked by its random.
type churn struct {
	namespace string
	rng       *rand.Rand
	samples   []kube.Object
	// live are the resources created and not deleted.
	live []kube.Object
	// claims are the DemoVolumes deleted once their claim was there, as
	// they were when deleted: what becomes of the claim is up to their
	// reclaim policy.
	claims                           []*seedv1alpha1.DemoVolume
	created, edited, deleted, scaled int
}

func newChurn(namespace string, seed uint64) *churn {
	samples, err := testenv.Samples()
	Expect(err).NotTo(HaveOccurred())
	c := &churn{namespace: namespace, rng: rand.New(rand.NewPCG(seed, 2))}
	for _, s := range samples {
		c.samples = append(c.samples, typed(s))
	}
	return c
}

// run takes a step every 0.2 to 0.8 s until stop is closed.
func (c *churn) run(ctx context.Context, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(200*time.Millisecond + time.Duration(c.rng.Int64N(int64(600*time.Millisecond)))):
		}
		switch n := c.rng.IntN(5); {
		case len(c.live) < 15 || n == 0:
			c.create(ctx)
		case n == 3:
			c.delete(ctx)
		case n == 4:
			c.scaleDeployment(ctx)
		default:
			c.edit(ctx)
		}
	}
}

func (c *churn) create(ctx context.Context) {
	obj, _ := c.samples[c.rng.IntN(len(c.samples))].DeepCopyObject().(kube.Object)
	obj.SetNamespace(c.namespace)
	obj.SetName(fmt.Sprintf("%s-%d", obj.GetName(), c.created))
	if dv, ok := obj.(*seedv1alpha1.DemoVolume); ok {
		dv.Spec.ReclaimPolicy = c.reclaimPolicy()
	}
	Expect(k8sClient.Create(ctx, obj)).To(Succeed())
	c.live = append(c.live, obj)
	c.created++
}

// edit changes the spec of a live resource as a user would. An Echo's
// spec cannot change: none is picked.
func (c *churn) edit(ctx context.Context) {
	editable := slices.DeleteFunc(slices.Clone(c.live), func(obj kube.Object) bool {
		_, echo := obj.(*seedv1alpha1.Echo)
		return echo
	})
	if len(editable) == 0 {
		return
	}
	obj := editable[c.rng.IntN(len(editable))]
	n := c.rng.IntN(3)
	testenv.Update(ctx, k8sClient, obj, func(obj kube.Object) {
		switch o := obj.(type) {
		case *seedv1alpha1.WebServer:
			o.Spec.Replicas = ptr.To(int32(n + 1))
		case *seedv1alpha1.ScheduledEcho:
			o.Spec.Message = fmt.Sprintf("edited %d", c.edited)
		case *seedv1alpha1.ImmortalContainer:
			o.Spec.Env = []seedv1alpha1.EnvVar{{Name: "EDITED", Value: strconv.Itoa(c.edited)}}
		case *seedv1alpha1.DemoVolume:
			o.Spec.ReclaimPolicy = c.reclaimPolicy()
		}
	})
	c.edited++
}

// scaleDeployment scales a WebServer's Deployment as kubectl scale does,
// behind the operator's back: it must scale it back.
func (c *churn) scaleDeployment(ctx context.Context) {
	var webServers []kube.Object
	for _, obj := range c.live {
		if _, ok := obj.(*seedv1alpha1.WebServer); ok {
			webServers = append(webServers, obj)
		}
	}
	if len(webServers) == 0 {
		return
	}
	d := &appsv1.Deployment{}
	err := k8sClient.Get(ctx, client.ObjectKeyFromObject(webServers[c.rng.IntN(len(webServers))]), d)
	if apierrors.IsNotFound(err) {
		return
	}
	Expect(err).NotTo(HaveOccurred())
	testenv.EditAs(ctx, k8sClient, d, "kubectl-scale", `{"spec":{"replicas":5}}`)
	c.scaled++
}

func (c *churn) delete(ctx context.Context) {
	i := c.rng.IntN(len(c.live))
	obj := c.live[i]
	if dv, ok := obj.(*seedv1alpha1.DemoVolume); ok {
		err := k8sClient.Get(ctx, client.ObjectKeyFromObject(dv), &corev1.PersistentVolumeClaim{})
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		if err == nil {
			c.claims = append(c.claims, dv)
		}
	}
	Expect(k8sClient.Delete(ctx, obj)).To(Succeed())
	c.live = slices.Delete(c.live, i, i+1)
	c.deleted++
}

func (c *churn) reclaimPolicy() seedv1alpha1.ReclaimPolicy {
	return []seedv1alpha1.ReclaimPolicy{seedv1alpha1.ReclaimRetain, seedv1alpha1.ReclaimDelete}[c.rng.IntN(2)]
}

// expectOwnedExactly waits until each live resource controls exactly the
// objects of its kind (a WebServer's Deployment at its replicas) and no
// object is controlled by a resource that is gone: the garbage collector
// deletes those, and a terminating pod takes a moment to go.
func expectOwnedExactly(ctx context.Context, c *churn) {
	want := map[types.UID][]string{}
	replicasOf := map[types.UID]int32{}
	names := map[types.UID]string{}
	for _, obj := range c.live {
		names[obj.GetUID()] = fmt.Sprintf("%T %s", obj, obj.GetName())
		switch o := obj.(type) {
		case *seedv1alpha1.WebServer:
			want[o.UID] = []string{"Deployment", "Service"}
			replicasOf[o.UID] = ptr.Deref(o.Spec.Replicas, 1)
		case *seedv1alpha1.Echo:
			want[o.UID] = []string{"Job"}
		case *seedv1alpha1.ScheduledEcho:
			want[o.UID] = []string{"CronJob"}
		case *seedv1alpha1.ImmortalContainer:
			want[o.UID] = []string{"Pod"}
		case *seedv1alpha1.DemoVolume:
			want[o.UID] = []string{"PersistentVolumeClaim"}
		}
	}
	Eventually(ctx, func(g Gomega) {
		got := map[types.UID][]string{}
		var orphans []string
		for obj, owner := range ownedBySamples(ctx, c.namespace) {
			gvk, err := apiutil.GVKForObject(obj, k8sClient.Scheme())
			g.Expect(err).NotTo(HaveOccurred())
			if _, live := want[owner]; !live {
				orphans = append(orphans, gvk.Kind+" "+obj.GetName())
				continue
			}
			got[owner] = append(got[owner], gvk.Kind)
			if d, ok := obj.(*appsv1.Deployment); ok {
				g.Expect(*d.Spec.Replicas).To(Equal(replicasOf[owner]), "Deployment %s", d.Name)
			}
		}
		g.Expect(orphans).To(BeEmpty(), "controlled by a deleted resource")
		for owner, kinds := range want {
			g.Expect(got[owner]).To(ConsistOf(kinds), "objects controlled by %s", names[owner])
		}
	}).WithTimeout(convergeWithin).WithPolling(2 * time.Second).Should(Succeed())
}

// expectClaimsAsPolicy checks the claim of each DemoVolume deleted once it
// had one: kept, released and labelled, with the Retain policy it had when
// deleted; gone with Delete, unless no replica saw the deletion (all were
// down), which keeps it as Retain does and says so in an event. It returns
// how many were kept so.
func expectClaimsAsPolicy(ctx context.Context, c *churn) int {
	unseen := 0
	for _, dv := range c.claims {
		key := client.ObjectKeyFromObject(dv)
		pvc := &corev1.PersistentVolumeClaim{}
		kept := func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key, pvc)).To(Succeed(), "the claim of %s, deleted with %s", dv.Name, dv.Spec.ReclaimPolicy)
			g.Expect(pvc.DeletionTimestamp).To(BeNil())
			g.Expect(pvc.OwnerReferences).To(BeEmpty())
			g.Expect(pvc.Labels).To(HaveKeyWithValue("seed.example.com/retained", "true"))
		}
		if dv.Spec.ReclaimPolicy == seedv1alpha1.ReclaimDelete {
			keptUnseen := false
			Eventually(ctx, func(g Gomega) {
				keptUnseen = false
				if err := k8sClient.Get(ctx, key, &corev1.PersistentVolumeClaim{}); apierrors.IsNotFound(err) {
					return
				}
				kept(g)
				events := &eventsv1.EventList{}
				g.Expect(k8sClient.List(ctx, events, client.InNamespace(dv.Namespace))).To(Succeed())
				g.Expect(events.Items).To(ContainElement(And(HaveField("Regarding.Name", dv.Name), HaveField("Reason", "Retained"),
					HaveField("Note", ContainSubstring("the operator did not see the DemoVolume deleted")))))
				keptUnseen = true
			}).Should(Succeed())
			if keptUnseen {
				unseen++
			}
			continue
		}
		Eventually(ctx, kept).Should(Succeed())
	}
	return unseen
}
