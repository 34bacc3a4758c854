//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// The conflict storm: while the operator reconciles, a user edits the
// custom resources' spec and other clients edit the Deployments, Services
// and CronJobs the operator owns, each as kubectl edit does: read, change,
// write back, and on a conflict (someone wrote in between) read again.
var _ = Describe("Conflicts", Label("chaos"), Serial, func() {
	const (
		// WebServers and ScheduledEchoes in the storm.
		perKind  = 10
		stormFor = 30 * time.Second
		// How long reconcile errors must stay still once all converged.
		settle = 20 * time.Second
	)

	It("keeps the spec the user wrote last, repairs every edit of what it owns, and its reconcile errors stop with the storm",
		func(ctx SpecContext) {
			scrape := metricsScraper(ctx)
			seed := chaosSeed()
			AddReportEntry("conflict storm seed", seed)
			s := newStorm(ctx, restrictedNamespace(ctx, "chaos-conflicts"), perKind)
			expectAllReady(ctx, s.objects())
			errorsBefore := counted(ctx, scrape, testenv.Metrics.ReconcileErrors)
			exits := exitCount()

			By(fmt.Sprintf("editing specs and owned objects from three clients for %s, seed %d (CHAOS_SEED=%d replays it)", stormFor, seed, seed))
			s.blow(ctx, seed, stormFor, s.editSpec, s.editWebServerObject, s.editCronJob)
			calm := time.Now()

			By("every resource Ready with the spec the user wrote last")
			expectAllReady(ctx, s.objects())
			s.expectLastSpecs(ctx)
			By("every owned object back as its owner's spec says")
			s.expectRepaired(ctx)
			converged := time.Since(calm)

			errors := counted(ctx, scrape, testenv.Metrics.ReconcileErrors) - errorsBefore
			report := fmt.Sprintf("%d spec edits and %d edits of owned objects in %s, seed %d; %d conflicts the clients met and retried; all %d resources Ready and repaired %.1fs after the storm; %d reconcile errors",
				s.specEdits.Load(), s.ownedEdits.Load(), stormFor, seed, s.conflicts.Load(), len(s.objects()), converged.Seconds(), int(errors))
			AddReportEntry("conflict storm", report)
			GinkgoWriter.Println("Conflict storm: " + report)
			expectReadyWithin(converged, "the storm")

			By("reconcile errors bounded by the edits, and none once converged")
			Expect(errors).To(BeNumerically("<=", s.specEdits.Load()+s.ownedEdits.Load()))
			Consistently(ctx, func() float64 {
				return counted(ctx, scrape, testenv.Metrics.ReconcileErrors) - errorsBefore
			}).WithTimeout(settle).WithPolling(5*time.Second).Should(Equal(errors), "reconcile errors after the storm")
			expectNoExitSince(exits)
		})
})

// stormManager is the field manager of the storm's clients.
const stormManager = "conflict-storm"

// storm holds the resources its clients edit, and what they did.
type storm struct {
	webServers []*seedv1alpha1.WebServer
	scheduled  []*seedv1alpha1.ScheduledEcho

	// last is each resource's spec as the user last wrote it, by name
	// (the kinds' names differ).
	mu   sync.Mutex
	last map[string]any

	specEdits, ownedEdits, conflicts atomic.Int64
}

// newStorm creates perKind copies of the WebServer and ScheduledEcho
// samples in namespace.
func newStorm(ctx context.Context, namespace string, perKind int) *storm {
	samples, err := testenv.Samples()
	Expect(err).NotTo(HaveOccurred())
	s := &storm{last: map[string]any{}}
	for _, sample := range samples {
		for i := range perKind {
			obj := typed(sample)
			obj.SetNamespace(namespace)
			obj.SetName(fmt.Sprintf("%s-%d", sample.GetName(), i))
			switch o := obj.(type) {
			case *seedv1alpha1.WebServer:
				s.webServers = append(s.webServers, o)
			case *seedv1alpha1.ScheduledEcho:
				s.scheduled = append(s.scheduled, o)
			default:
				continue
			}
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
			s.last[obj.GetName()] = specOf(obj)
		}
	}
	return s
}

func (s *storm) objects() []kube.Object {
	objs := make([]kube.Object, 0, len(s.webServers)+len(s.scheduled))
	for _, ws := range s.webServers {
		objs = append(objs, ws.DeepCopy())
	}
	for _, se := range s.scheduled {
		objs = append(objs, se.DeepCopy())
	}
	return objs
}

// blow runs each client in a goroutine of its own, with a random of its
// own from seed, taking a step every 50 to 150 ms for duration.
func (s *storm) blow(ctx context.Context, seed uint64, duration time.Duration, clients ...func(context.Context, *rand.Rand)) {
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	for i, step := range clients {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		wg.Go(func() {
			defer GinkgoRecover()
			for time.Now().Before(deadline) {
				time.Sleep(50*time.Millisecond + time.Duration(rng.Int64N(int64(100*time.Millisecond))))
				step(ctx, rng)
			}
		})
	}
	wg.Wait()
}

// editSpec changes a resource's spec as its user would, and keeps it as
// the spec the operator must end up with.
func (s *storm) editSpec(ctx context.Context, rng *rand.Rand) {
	var obj kube.Object
	if rng.IntN(2) == 0 {
		ws := s.webServers[rng.IntN(len(s.webServers))].DeepCopy()
		replicas, port := int32(1+rng.IntN(3)), []int32{80, 8081}[rng.IntN(2)]
		s.update(ctx, ws, func() { ws.Spec.Replicas, ws.Spec.Port = &replicas, port })
		obj = ws
	} else {
		se := s.scheduled[rng.IntN(len(s.scheduled))].DeepCopy()
		message, schedule := fmt.Sprintf("storm %d", rng.IntN(1000)), []string{"0 0 1 1 *", "0 12 * * 0", "* * * * *"}[rng.IntN(3)]
		s.update(ctx, se, func() { se.Spec.Message, se.Spec.Schedule = message, seedv1alpha1.CronSchedule(schedule) })
		obj = se
	}
	s.mu.Lock()
	s.last[obj.GetName()] = specOf(obj)
	s.mu.Unlock()
	s.specEdits.Add(1)
}

// editWebServerObject scales a WebServer's Deployment and changes its
// image, or moves its Service's port, behind the operator's back.
func (s *storm) editWebServerObject(ctx context.Context, rng *rand.Rand) {
	ws := s.webServers[rng.IntN(len(s.webServers))]
	if rng.IntN(2) == 0 {
		d := &appsv1.Deployment{}
		d.Namespace, d.Name = ws.Namespace, ws.Name
		s.update(ctx, d, func() {
			d.Spec.Replicas = ptr.To[int32](5)
			d.Spec.Template.Spec.Containers[0].Image = "registry.invalid/storm:1"
		})
	} else {
		svc := &corev1.Service{}
		svc.Namespace, svc.Name = ws.Namespace, ws.Name+"-service"
		s.update(ctx, svc, func() { svc.Spec.Ports[0].Port = 9999 })
	}
	s.ownedEdits.Add(1)
}

// editCronJob changes a ScheduledEcho's CronJob's schedule and message
// behind the operator's back.
func (s *storm) editCronJob(ctx context.Context, rng *rand.Rand) {
	se := s.scheduled[rng.IntN(len(s.scheduled))]
	cj := &batchv1.CronJob{}
	cj.Namespace, cj.Name = se.Namespace, se.Name
	s.update(ctx, cj, func() {
		cj.Spec.Schedule = "*/7 * * * *"
		cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args = []string{"edited by the storm"}
	})
	s.ownedEdits.Add(1)
}

// update reads obj, changes it and writes it back, until nobody has
// written it in between; it counts the conflicts.
func (s *storm) update(ctx context.Context, obj client.Object, change func()) {
	for {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		change()
		err := k8sClient.Update(ctx, obj, client.FieldOwner(stormManager))
		if !apierrors.IsConflict(err) {
			Expect(err).NotTo(HaveOccurred(), "updating %T %s", obj, obj.GetName())
			return
		}
		s.conflicts.Add(1)
	}
}

// expectLastSpecs checks that no write of the operator undid one of the
// user's: each resource's spec is the one the user wrote last.
func (s *storm) expectLastSpecs(ctx context.Context) {
	for _, obj := range s.objects() {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		Expect(specOf(obj)).To(Equal(s.last[obj.GetName()]), "the spec of %T %s", obj, obj.GetName())
	}
}

// expectRepaired waits until every owned object says what its owner's
// spec does in each field the storm edited.
func (s *storm) expectRepaired(ctx context.Context) {
	Eventually(ctx, func(g Gomega) {
		for _, ws := range s.webServers {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ws), ws)).To(Succeed())
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ws), d)).To(Succeed())
			g.Expect(d.Spec.Replicas).To(HaveValue(Equal(*ws.Spec.Replicas)), "replicas of Deployment %s", d.Name)
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(ws.Spec.Image), "image of Deployment %s", d.Name)
			svc := &corev1.Service{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ws.Namespace, Name: ws.Name + "-service"}, svc)).To(Succeed())
			g.Expect(svc.Spec.Ports[0].Port).To(Equal(ws.Spec.Port), "port of Service %s", svc.Name)
		}
		for _, se := range s.scheduled {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(se), se)).To(Succeed())
			cj := &batchv1.CronJob{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(se), cj)).To(Succeed())
			g.Expect(cj.Spec.Schedule).To(BeEquivalentTo(se.Spec.Schedule), "schedule of CronJob %s", cj.Name)
			g.Expect(cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args).To(Equal([]string{se.Spec.Message}), "message of CronJob %s", cj.Name)
		}
	}).WithTimeout(convergeWithin).WithPolling(2 * time.Second).Should(Succeed())
}

// specOf is the spec of a WebServer or a ScheduledEcho.
func specOf(obj kube.Object) any {
	switch o := obj.(type) {
	case *seedv1alpha1.WebServer:
		return o.Spec
	case *seedv1alpha1.ScheduledEcho:
		return o.Spec
	}
	Fail(fmt.Sprintf("no spec for %T in the storm", obj))
	return nil
}
