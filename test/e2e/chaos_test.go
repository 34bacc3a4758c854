//go:build e2e && chaos

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
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

	DescribeTable("rides out a control-plane component killed during a burst, converges once it is back, and creates nothing twice",
		func(ctx SpecContext, component string, down time.Duration) {
			namespace := restrictedNamespace(ctx, "chaos")
			errorsBefore := counted(ctx, scrape, testenv.Metrics.ReconcileErrors)
			// The liveness probes, as the kubelet would send them.
			probes := make([]*poller, len(replicas))
			for i, r := range replicas {
				probes[i] = startPolling(fmt.Sprintf("http://127.0.0.1:%d/healthz", r.probePort))
			}
			created := watchCreations(ctx, namespace)
			objs := burst(ctx, namespace, perKind)

			By(fmt.Sprintf("killing %s for %s while the operator reconciles them", component, down))
			killed := time.Now()
			Expect(controlPlane.Kill(component)).To(Succeed())
			time.Sleep(down)
			Expect(controlPlane.Restart(ctx, component)).To(Succeed())
			back := time.Now()

			stopResync := resyncKwokPods(ctx, namespace)
			expectAllReady(ctx, objs)
			converged := time.Since(back)
			resynced := stopResync()
			var failedProbes []string
			for _, p := range probes {
				p.stop()
				sent, failures, _ := p.result()
				Expect(sent).To(BeNumerically(">", 0), "no probe sent to %s", p.url)
				failedProbes = append(failedProbes, failures...)
			}
			errors := counted(ctx, scrape, testenv.Metrics.ReconcileErrors) - errorsBefore
			report := fmt.Sprintf("%s killed for %s, back (ready) %.1fs after the kill; all %d resources Ready %.1fs after its return; %d reconcile errors; %d pods kwok dropped resynced",
				component, down, back.Sub(killed).Seconds(), len(objs), converged.Seconds(), int(errors), resynced)
			AddReportEntry("chaos: "+component, report)
			GinkgoWriter.Println("Chaos: " + report)

			By("both replicas still running, their probes answering all along, one leader")
			for _, r := range replicas {
				Expect(r.hasExited()).To(BeFalse(), "replica %s exited:\n%s", r.name, r.tail())
				Expect(r.log()).NotTo(ContainSubstring("leader election lost"), "replica %s", r.name)
			}
			Expect(failedProbes).To(BeEmpty(), "liveness probes that failed")
			Expect(leaseHolderNow(ctx)).NotTo(BeEmpty())

			By("reconcile errors bounded by the outage, not by retries")
			Expect(errors).To(BeNumerically("<=", errorBound(len(objs), back.Sub(killed))))

			expectOwnedOnce(ctx, namespace, perKind, created)
		},
		Entry("kube-apiserver", cluster.APIServer, 20*time.Second),
		Entry("etcd", cluster.Etcd, 20*time.Second),
	)

	It("backs off and converges while the API server throttles its requests with 429s", func(ctx SpecContext) {
		namespace := restrictedNamespace(ctx, "chaos-throttled")
		throttledBefore := counted(ctx, scrape, throttledRequests)
		errorsBefore := counted(ctx, scrape, testenv.Metrics.ReconcileErrors)
		throttleOperator(ctx)

		created := watchCreations(ctx, namespace)
		objs := burst(ctx, namespace, perKind)
		start := time.Now()
		expectAllReady(ctx, objs)
		converged := time.Since(start)
		throttled := counted(ctx, scrape, throttledRequests) - throttledBefore
		errors := counted(ctx, scrape, testenv.Metrics.ReconcileErrors) - errorsBefore
		report := fmt.Sprintf("%d requests answered 429; all %d resources Ready %.1fs after they were created; %d reconcile errors",
			int(throttled), len(objs), converged.Seconds(), int(errors))
		AddReportEntry("chaos: throttled", report)
		GinkgoWriter.Println("Chaos: " + report)

		Expect(throttled).To(BeNumerically(">", 0), "the API server throttled none of the operator's requests")
		for _, r := range replicas {
			Expect(r.hasExited()).To(BeFalse(), "replica %s exited:\n%s", r.name, r.tail())
		}
		expectOwnedOnce(ctx, namespace, perKind, created)
	})
})

// convergeWithin is how long the chaos specs wait for every resource to be
// Ready once the component is back. The time it took is what they report;
// the wait is long because client-go's reflectors back off up to a minute
// after errors that came less than two minutes apart (the API server's
// watch cache, the controller manager's informers and the operator's each
// do), and those waits can follow one another. An object that never
// converges still fails the spec.
const convergeWithin = 4 * time.Minute

// expectAllReady waits until every obj is Ready for its generation, and
// names each that is not, with its Ready condition, when it gives up.
func expectAllReady(ctx context.Context, objs []kube.Object) {
	Eventually(ctx, func(g Gomega) {
		var notReady []string
		for _, obj := range objs {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			ready := meta.FindStatusCondition(obj.GetConditions(), seedv1alpha1.ConditionReady)
			switch {
			case ready == nil:
				notReady = append(notReady, fmt.Sprintf("%T %s: no Ready condition", obj, obj.GetName()))
			case ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != obj.GetGeneration():
				notReady = append(notReady, fmt.Sprintf("%T %s: Ready=%s for generation %d of %d, %s: %s",
					obj, obj.GetName(), ready.Status, ready.ObservedGeneration, obj.GetGeneration(), ready.Reason, ready.Message))
			}
		}
		g.Expect(notReady).To(BeEmpty(), "%d of %d resources not Ready", len(notReady), len(objs))
	}).WithTimeout(convergeWithin).WithPolling(2 * time.Second).Should(Succeed())
}

// resyncKwokPods does for kwok's fake nodes what a kubelet does on its own:
// go over its pods again, every 20 s, until the returned function is
// called, which says how many pods it touched. kwok v0.8.0 gives a pod's
// next stage up when the API server answers 500 (etcd gone), as it retries
// only refused connections, timeouts, 503 and 429, and plays it again only
// when the pod changes: such a pod stays Pending, or a Job's pod Running,
// for good, and its owner rightly not Ready. An annotation is that change,
// for every pod kwok has yet to move on: not Ready, or a Job's and not
// done.
func resyncKwokPods(ctx context.Context, namespace string) func() int {
	stop, done := make(chan struct{}), make(chan int)
	go func() {
		defer GinkgoRecover()
		touched := map[string]bool{}
		for {
			select {
			case <-stop:
				done <- len(touched)
				return
			case <-time.After(20 * time.Second):
			}
			pods := &corev1.PodList{}
			if err := k8sClient.List(ctx, pods, client.InNamespace(namespace)); err != nil {
				continue
			}
			for _, pod := range pods.Items {
				ready := false
				for _, c := range pod.Status.Conditions {
					ready = ready || (c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
				}
				owner := metav1.GetControllerOf(&pod)
				jobs := owner != nil && owner.Kind == "Job"
				done := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
				if done || (ready && !jobs) || pod.DeletionTimestamp != nil || time.Since(pod.CreationTimestamp.Time) < 20*time.Second {
					continue
				}
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"seed.example.com/kwok-resync":%q}}}`, time.Now().Format(time.RFC3339))
				if k8sClient.Patch(ctx, &pod, client.RawPatch(types.MergePatchType, []byte(patch))) == nil {
					touched[pod.Name] = true
				}
			}
		}
	}()
	return func() int {
		close(stop)
		return <-done
	}
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

// expectOwnedOnce checks that each custom resource in namespace has one of
// each object it owns (by the kind its labels name), that no
// ImmortalContainer's pod was started twice, and that the watches of
// created saw no owned object made twice.
func expectOwnedOnce(ctx context.Context, namespace string, perKind int, created *creations) {
	owned := []struct {
		list client.ObjectList
		kind string
	}{
		{&appsv1.DeploymentList{}, "webserver"},
		{&corev1.ServiceList{}, "webserver"},
		{&batchv1.JobList{}, "echo"},
		{&batchv1.CronJobList{}, "scheduledecho"},
		{&corev1.PersistentVolumeClaimList{}, "demovolume"},
		{&corev1.PodList{}, "immortalcontainer"},
	}
	for _, o := range owned {
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

// metricsScraper reads a replica's metrics, as a ServiceAccount bound to
// the metrics-reader ClusterRole: the metrics are served to authorized
// clients only.
func metricsScraper(ctx context.Context) func(context.Context, *replica) testenv.Metrics {
	const scraper = "seed-chaos-scraper"
	token, err := testenv.MetricsReaderToken(ctx, clientset, scraper)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(k8sClient.Delete, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: scraper, Namespace: operatorNamespace}})
	DeferCleanup(k8sClient.Delete, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: scraper}})
	return func(ctx context.Context, r *replica) testenv.Metrics {
		var metrics testenv.Metrics
		Eventually(ctx, func(g Gomega) {
			status, body, err := scrapeMetrics(ctx, r, token)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(status).To(Equal(http.StatusOK), "%s", body)
			metrics, err = testenv.ParseMetrics(body)
			g.Expect(err).NotTo(HaveOccurred())
		}).Should(Succeed())
		return metrics
	}
}
