package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/seed-operators/seed-operator/controllers"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

const (
	operatorPort = 18480
	leaseName    = kube.LeaderElectionID
	// leaseUpdateLimit is well above the operator's retry period (2 s).
	leaseUpdateLimit = 30 * time.Second
	leaseSettle      = 300 * time.Millisecond
)

// ownedResources are the resources of the kinds the operator makes, which
// the idle minute watches with the custom resources and the events.
func ownedResources() ([]schema.GroupVersionResource, error) {
	var out []schema.GroupVersionResource
	for _, owned := range controllers.Owned {
		gvr, err := resourceOf(owned.Type)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, gvr) {
			out = append(out, gvr)
		}
	}
	return out, nil
}

// resourceOf is the resource of an object of a built-in kind.
func resourceOf(obj client.Object) (schema.GroupVersionResource, error) {
	gvk, err := apiutil.GVKForObject(obj, clientgoscheme.Scheme)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	return gvr, nil
}

// benchSize runs the baseline, the floor and then the operator for every
// kind, with n objects each.
func (c *clients) benchSize(ctx context.Context, cfg config, n int) (sizeResult, error) {
	res := sizeResult{N: n}
	timeout := limitFor(n)
	// What an interrupted run left.
	leftovers := make([]string, 0, 2+2*len(cfg.kinds))
	leftovers = append(leftovers, "bench-starvation", "bench-starvation-alone")
	for _, k := range cfg.kinds {
		name := strings.ToLower(k.name)
		leftovers = append(leftovers, "bench-raw-"+name, "bench-floor-"+name, "bench-"+name, "bench-raw-after-"+name)
	}
	if err := c.deleteNamespaces(ctx, leftovers, timeout); err != nil {
		return res, err
	}
	// The custom resources of the floor need their definitions.
	if err := c.install(ctx, cfg.root); err != nil {
		return res, err
	}
	var err error
	if res.Kinds, err = c.baselines(ctx, cfg, n, timeout); err != nil {
		return res, err
	}

	op, err := c.startOperator(ctx, cfg, filepath.Join(cfg.root, "bin", "bench", fmt.Sprintf("operator-%d", n)), operatorPort)
	if err != nil {
		return res, err
	}
	defer func() { _ = op.stop() }()
	leaseCtx, stopLease := context.WithCancel(ctx)
	defer stopLease()
	renewals, err := c.watchLease(leaseCtx)
	if err != nil {
		return res, err
	}
	heapStart, err := op.heap(ctx)
	if err != nil {
		return res, err
	}

	var namespaces []string
	for i, k := range cfg.kinds {
		namespace := "bench-" + strings.ToLower(k.name)
		namespaces = append(namespaces, namespace)
		fmt.Printf("N=%d %s: the operator\n", n, k.name)
		before, err := op.snapshot(ctx, renewals)
		if err != nil {
			return res, err
		}
		stopProfiling, err := c.profileBurst(ctx, op, cfg.profile, n, k.name)
		if err != nil {
			return res, err
		}
		b, err := c.inNamespace(ctx, namespace, func() (burstResult, error) {
			return c.burst(ctx, namespace, n, cfg.workers, k.operator, timeout)
		})
		stopProfiling()
		if err != nil {
			return res, fmt.Errorf("%s: %w (operator log: %s)", k.name, err, op.logPath)
		}
		after, err := op.snapshot(ctx, renewals)
		if err != nil {
			return res, err
		}
		events, err := c.countEvents(ctx, namespace)
		if err != nil {
			return res, err
		}
		res.Kinds[i].Operator = operatorFigures(b, before, after, n, events, k.controller)
		res.Kinds[i].Ratio = b.Seconds / res.Kinds[i].Baseline.Seconds
	}

	fmt.Printf("N=%d: the operator idles for %s\n", n, cfg.idle)
	if res.Idle, err = c.idle(ctx, op, renewals, namespaces, cfg.idle); err != nil {
		return res, err
	}
	heapEnd, err := op.heap(ctx)
	if err != nil {
		return res, err
	}
	profile, err := op.saveHeapProfile(ctx)
	if err != nil {
		return res, err
	}
	fmt.Printf("N=%d: the operator's heap profile: go tool pprof -sample_index=inuse_space -top %s\n", n, profile)
	inCache, err := c.countCached(ctx, namespaces)
	if err != nil {
		return res, err
	}
	stats, err := op.proc()
	if err != nil {
		return res, err
	}
	res.Memory = newMemoryResult(stats, heapStart, heapEnd, inCache)
	res.CPUSeconds = stats.cpuSeconds
	if measuresStarvation(cfg) {
		fmt.Printf("N=%d: a few WebServers while %d Echoes are created, then alone\n", n, n)
		starvation, more, err := c.starvation(ctx, cfg, n, timeout)
		namespaces = append(namespaces, more...)
		if err != nil {
			return res, err
		}
		res.Starvation = starvation
	}

	// The operator runs until its objects are gone: some hold finalizers
	// it removes. What it does while a burst's namespace goes is measured.
	for i, k := range cfg.kinds {
		fmt.Printf("N=%d %s: the namespace deleted\n", n, k.name)
		if res.Kinds[i].Deletion, err = c.deletion(ctx, op, renewals, namespaces[i], n, k.controller); err != nil {
			return res, err
		}
	}
	if err := c.deleteNamespaces(ctx, namespaces[len(cfg.kinds):], timeout); err != nil {
		return res, err
	}
	if err := op.stop(); err != nil {
		return res, err
	}
	return res, c.baselinesAgain(ctx, cfg, n, timeout, res.Kinds)
}

func (c *clients) deleteNamespaces(ctx context.Context, namespaces []string, limit time.Duration) error {
	for _, namespace := range namespaces {
		if err := c.deleteNamespace(ctx, namespace, limit); err != nil {
			return err
		}
	}
	return nil
}

// baselines bursts n objects of every kind with client-go, then the same
// with the custom resources and no operator: the floor.
func (c *clients) baselines(ctx context.Context, cfg config, n int, timeout time.Duration) ([]kindResult, error) {
	kinds := make([]kindResult, 0, len(cfg.kinds))
	for _, k := range cfg.kinds {
		fmt.Printf("N=%d %s: raw client-go\n", n, k.name)
		b, err := c.rawBurst(ctx, "bench-raw-"+strings.ToLower(k.name), n, cfg.workers, k.baseline, timeout)
		if err != nil {
			return nil, fmt.Errorf("baseline of %s: %w", k.name, err)
		}
		fmt.Printf("N=%d %s: raw client-go, and the custom resources with no operator\n", n, k.name)
		floor, err := c.rawBurst(ctx, "bench-floor-"+strings.ToLower(k.name), n, cfg.workers, k.withCustomResource(), timeout)
		if err != nil {
			return nil, fmt.Errorf("floor of %s: %w", k.name, err)
		}
		kinds = append(kinds, kindResult{Kind: k.name, Baseline: b, Floor: floor, FloorRatio: floor.Seconds / b.Seconds})
	}
	return kinds, nil
}

// baselinesAgain bursts the baseline again, on the cluster as quiet as the
// first time: when the two differ, the cluster changed under the run.
func (c *clients) baselinesAgain(ctx context.Context, cfg config, n int, timeout time.Duration, kinds []kindResult) error {
	for i, k := range cfg.kinds {
		fmt.Printf("N=%d %s: raw client-go again\n", n, k.name)
		b, err := c.rawBurst(ctx, "bench-raw-after-"+strings.ToLower(k.name), n, cfg.workers, k.baseline, timeout)
		if err != nil {
			return fmt.Errorf("baseline of %s, again: %w", k.name, err)
		}
		kinds[i].BaselineAfter = b
		kinds[i].BaselineDrift = b.Seconds / kinds[i].Baseline.Seconds
	}
	return nil
}

// snapshot is what the operator has done so far.
type snapshot struct {
	metrics  testenv.Metrics
	proc     procStats
	renewals int64
}

func (o *operator) snapshot(ctx context.Context, lease *leaseUpdates) (snapshot, error) {
	renewals, err := lease.afterNext(ctx)
	if err != nil {
		return snapshot{}, err
	}
	m, err := o.metrics(ctx)
	if err != nil {
		return snapshot{}, err
	}
	p, err := o.proc()
	return snapshot{metrics: m, proc: p, renewals: renewals}, err
}

// requests are the operator's API requests between two snapshots, by
// method, without the PUTs that renew its Lease.
func requests(before, after snapshot) map[string]float64 {
	out := after.metrics.By("rest_client_requests_total", "method", nil)
	for method, count := range before.metrics.By("rest_client_requests_total", "method", nil) {
		out[method] -= count
	}
	out["PUT"] -= float64(after.renewals - before.renewals)
	for method, count := range out {
		if count == 0 {
			delete(out, method)
		}
	}
	return out
}

func writes(requests map[string]float64) float64 {
	return requests["POST"] + requests["PUT"] + requests["PATCH"] + requests["DELETE"]
}

func operatorFigures(b burstResult, before, after snapshot, n, events int, controller string) operatorResult {
	perCR := requests(before, after)
	total := writes(perCR)
	for method := range perCR {
		perCR[method] /= float64(n)
	}
	reconciles := func(s snapshot, labels map[string]string) float64 {
		return s.metrics.Sum("controller_runtime_reconcile_total", labels)
	}
	ofController := map[string]string{"controller": controller}
	errorsOf := map[string]string{"controller": controller, "result": "error"}
	return operatorResult{
		burstResult:     b,
		RequestsPerCR:   perCR,
		EventsPerCR:     float64(events) / float64(n),
		WritesPerCR:     (total - float64(events)) / float64(n),
		ReconcilesPerCR: (reconciles(after, ofController) - reconciles(before, ofController)) / float64(n),
		ReconcileErrors: int(reconciles(after, errorsOf) - reconciles(before, errorsOf)),
		CPUSeconds:      after.proc.cpuSeconds - before.proc.cpuSeconds,
		RSSBytes:        after.proc.rss,
	}
}

// deletion deletes the namespace of a burst of n custom resources, the
// operator running, and says how long it took to go and what the operator
// did meanwhile.
func (c *clients) deletion(
	ctx context.Context, op *operator, renewals *leaseUpdates, namespace string, n int, controller string,
) (deletionResult, error) {
	before, err := op.snapshot(ctx, renewals)
	if err != nil {
		return deletionResult{}, err
	}
	start := time.Now()
	if err := c.deleteNamespace(ctx, namespace, limitFor(n)); err != nil {
		return deletionResult{}, err
	}
	seconds := time.Since(start).Seconds()
	after, err := op.snapshot(ctx, renewals)
	if err != nil {
		return deletionResult{}, err
	}
	f := operatorFigures(burstResult{Seconds: seconds}, before, after, n, 0, controller)
	return deletionResult{Seconds: seconds, RequestsPerCR: f.RequestsPerCR, WritesPerCR: f.WritesPerCR, ReconcilesPerCR: f.ReconcilesPerCR}, nil
}

// idle watches the operator while nothing changes: it should write
// nothing, reconcile nothing, and no object should change.
func (c *clients) idle(ctx context.Context, op *operator, renewals *leaseUpdates, namespaces []string, d time.Duration) (idleResult, error) {
	versionsBefore, err := c.versions(ctx, namespaces)
	if err != nil {
		return idleResult{}, err
	}
	before, err := op.snapshot(ctx, renewals)
	if err != nil {
		return idleResult{}, err
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return idleResult{}, ctx.Err()
	}
	after, err := op.snapshot(ctx, renewals)
	if err != nil {
		return idleResult{}, err
	}
	versionsAfter, err := c.versions(ctx, namespaces)
	if err != nil {
		return idleResult{}, err
	}
	changed := 0
	byResource := map[string]int{}
	for uid, version := range versionsAfter {
		if versionsBefore[uid] != version {
			changed++
			byResource[version.resource]++
		}
	}
	for uid, version := range versionsBefore {
		if _, ok := versionsAfter[uid]; !ok {
			changed++
			byResource[version.resource]++
		}
	}
	all := "controller_runtime_reconcile_total"
	return idleResult{
		Seconds:           d.Seconds(),
		Writes:            int(writes(requests(before, after))),
		Reconciles:        int(after.metrics.Value(all) - before.metrics.Value(all)),
		ObjectsChanged:    changed,
		ChangedByResource: byResource,
	}, nil
}

// reporter is the controller that reported an event: the control plane's
// components report through the old API, which the new one shows as its
// deprecated source.
func reporter(event *unstructured.Unstructured) string {
	for _, field := range [][]string{{"reportingController"}, {"deprecatedSource", "component"}} {
		if name, _, _ := unstructured.NestedString(event.Object, field...); name != "" {
			return name
		}
	}
	return "an unnamed controller"
}

// objectVersion is an object's resource and resourceVersion.
type objectVersion struct {
	resource, version string
}

// crResources are the custom resources measured.
var crResources = []schema.GroupVersionResource{webServers, echoes, immortalContainers, demoVolumes}

// versions are the resourceVersions of the custom resources, the objects
// of the kinds the operator makes, and the events, by UID.
func (c *clients) versions(ctx context.Context, namespaces []string) (map[string]objectVersion, error) {
	out := map[string]objectVersion{}
	owned, err := ownedResources()
	if err != nil {
		return nil, err
	}
	resources := slices.Concat(crResources, owned, []schema.GroupVersionResource{eventsv1.SchemeGroupVersion.WithResource("events")})
	err = c.eachObject(ctx, namespaces, resources, metav1.ListOptions{}, func(gvr schema.GroupVersionResource, item *unstructured.Unstructured) {
		resource := gvr.Resource
		if resource == "events" {
			resource += " of " + reporter(item)
		}
		out[string(item.GetUID())] = objectVersion{resource: resource, version: item.GetResourceVersion()}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// countCached counts the objects the operator's cache holds for the
// benchmark: the custom resources, and the objects of the kinds it makes
// that its cache selects, as the manager builds the cache.
func (c *clients) countCached(ctx context.Context, namespaces []string) (int, error) {
	count := 0
	add := func(schema.GroupVersionResource, *unstructured.Unstructured) { count++ }
	if err := c.eachObject(ctx, namespaces, crResources, metav1.ListOptions{}, add); err != nil {
		return 0, err
	}
	for obj, byObject := range cached.Options(nil, controllers.Owned...).ByObject {
		gvr, err := resourceOf(obj)
		if err != nil {
			return 0, err
		}
		selected := metav1.ListOptions{LabelSelector: byObject.Label.String()}
		if err := c.eachObject(ctx, namespaces, []schema.GroupVersionResource{gvr}, selected, add); err != nil {
			return 0, err
		}
	}
	return count, nil
}

// eachObject calls f with each object of the resources in the namespaces,
// as listed with opts, and its resource.
func (c *clients) eachObject(
	ctx context.Context, namespaces []string, resources []schema.GroupVersionResource, opts metav1.ListOptions,
	f func(schema.GroupVersionResource, *unstructured.Unstructured),
) error {
	for _, namespace := range namespaces {
		for _, gvr := range resources {
			list, err := c.dyn.Resource(gvr).Namespace(namespace).List(ctx, opts)
			if err != nil {
				return fmt.Errorf("listing %s in %s: %w", gvr.Resource, namespace, err)
			}
			for i := range list.Items {
				f(gvr, &list.Items[i])
			}
		}
	}
	return nil
}

func (c *clients) countEvents(ctx context.Context, namespace string) (int, error) {
	list, err := c.kube.EventsV1().Events(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	count := 0
	for _, e := range list.Items {
		if e.ReportingController == kube.FieldManager {
			count++
		}
	}
	return count, nil
}

// leaseUpdates counts the updates of the operator's Lease, each a renewal
// by the leader: a PUT that is not the operator's work.
type leaseUpdates struct {
	mu      sync.Mutex
	count   int64
	updated chan struct{} // closed at the next update
}

func (l *leaseUpdates) add() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	close(l.updated)
	l.updated = make(chan struct{})
}

// afterNext waits for the next renewal and returns the count then. Reading
// the operator's metrics right after keeps them in step with the count: the
// next renewal is a retry period away.
func (l *leaseUpdates) afterNext(ctx context.Context) (int64, error) {
	l.mu.Lock()
	updated := l.updated
	l.mu.Unlock()
	select {
	case <-updated:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(leaseUpdateLimit):
		return 0, fmt.Errorf("the operator did not renew its Lease within %s", leaseUpdateLimit)
	}
	// The watch may tell of the renewal before the operator has counted
	// its answer in its metrics.
	time.Sleep(leaseSettle)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, nil
}

// watchLease counts the updates of the operator's Lease until ctx ends.
func (c *clients) watchLease(ctx context.Context) (*leaseUpdates, error) {
	leases := c.kube.CoordinationV1().Leases(operatorNamespace)
	selector := fields.OneTermEqualSelector("metadata.name", leaseName).String()
	current, err := leases.List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return nil, err
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, current.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			options.FieldSelector = selector
			return leases.Watch(ctx, options)
		},
	})
	if err != nil {
		return nil, err
	}
	l := &leaseUpdates{updated: make(chan struct{})}
	go func() {
		defer w.Stop()
		for e := range w.ResultChan() {
			if _, ok := e.Object.(*coordinationv1.Lease); ok && e.Type == watch.Modified {
				l.add()
			}
		}
	}()
	return l, nil
}

// inNamespace makes namespace, then runs f.
// rawBurst makes a workload in a namespace of its own with no operator
// running, and deletes the namespace after.
func (c *clients) rawBurst(ctx context.Context, namespace string, n, workers int, w workload, timeout time.Duration) (burstResult, error) {
	b, err := c.inNamespace(ctx, namespace, func() (burstResult, error) {
		return c.burst(ctx, namespace, n, workers, w, timeout)
	})
	if err != nil {
		return b, err
	}
	return b, c.deleteNamespace(ctx, namespace, timeout)
}

func (c *clients) inNamespace(ctx context.Context, namespace string, f func() (burstResult, error)) (burstResult, error) {
	if err := c.createNamespace(ctx, namespace); err != nil {
		return burstResult{}, err
	}
	return f()
}

func (c *clients) createNamespace(ctx context.Context, namespace string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	return nil
}

// limitFor is how long a burst of n objects of a kind may take to be done,
// and its namespace to go: a bound on a run stuck, not a target.
func limitFor(n int) time.Duration {
	return 5*time.Minute + time.Duration(n)*time.Second
}

// deleteNamespace deletes namespace and waits, up to limit, until it is
// gone, so that the next burst runs on a cluster as quiet as the first.
func (c *clients) deleteNamespace(ctx context.Context, namespace string, limit time.Duration) error {
	if err := c.kube.CoreV1().Namespaces().Delete(ctx, namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		_, err := c.kube.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return errors.New("namespace " + namespace + " still there after " + limit.String())
}
