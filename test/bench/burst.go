package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// burstResult is how long a burst of N objects took to be done.
type burstResult struct {
	// Seconds from the first create to the last object done.
	Seconds float64 `json:"seconds"`
	// Create-to-done latency of each object, in seconds.
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	// ControlPlaneCPU is the CPU time, in seconds, each of the cluster's
	// control-plane processes used from the first create to the last
	// object done.
	ControlPlaneCPU map[string]float64 `json:"controlPlaneCPU"`
}

// burst makes the workload's N objects at once from workers goroutines and
// waits until each tracked object is done, as a watch sees it.
func (c *clients) burst(ctx context.Context, namespace string, n, workers int, w workload, timeout time.Duration) (burstResult, error) {
	created := make([]time.Time, n)
	tracker := newReadyTracker(n, w)
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(c.dyn, 0, namespace, nil)
	informer := factory.ForResource(w.tracked).Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    tracker.observe,
		UpdateFunc: func(_, obj any) { tracker.observe(obj) },
	}); err != nil {
		return burstResult{}, err
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	factory.Start(watchCtx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return burstResult{}, fmt.Errorf("watching %s: %w", w.tracked.Resource, ctx.Err())
	}

	cpuBefore, err := controlPlaneCPU(c.pidDir)
	if err != nil {
		return burstResult{}, err
	}
	start := time.Now()
	if err := c.createAll(ctx, namespace, n, workers, w, created); err != nil {
		return burstResult{}, err
	}
	select {
	case <-tracker.done:
	case <-time.After(timeout):
		return burstResult{}, fmt.Errorf("%d of %d %s done after %s", tracker.count(), n, w.tracked.Resource, timeout)
	case <-ctx.Done():
		return burstResult{}, ctx.Err()
	}
	cpuAfter, err := controlPlaneCPU(c.pidDir)
	if err != nil {
		return burstResult{}, err
	}

	latencies := make([]float64, n)
	last := start
	for i := range n {
		at := tracker.at(i)
		latencies[i] = at.Sub(created[i]).Seconds()
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(latencies)
	return burstResult{
		Seconds: last.Sub(start).Seconds(),
		P50:     percentile(latencies, 50), P95: percentile(latencies, 95), P99: percentile(latencies, 99),
		ControlPlaneCPU: cpuSpent(cpuBefore, cpuAfter),
	}, nil
}

// createAll creates every object of the workload, from workers goroutines,
// and records when each index's first object was sent.
func (c *clients) createAll(ctx context.Context, namespace string, n, workers int, w workload, created []time.Time) error {
	indexes := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range indexes {
				created[i] = time.Now()
				if err := c.createObjects(ctx, namespace, w.objects(i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var err error
send:
	for i := range n {
		select {
		case indexes <- i:
		case err = <-errs:
			break send
		}
	}
	close(indexes)
	wg.Wait()
	close(errs)
	if err != nil {
		return err
	}
	return <-errs
}

func (c *clients) createObjects(ctx context.Context, namespace string, objects []runtime.Object) error {
	for _, obj := range objects {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: content}
		mapping, err := c.mapper.RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
		if err != nil {
			return err
		}
		if _, err := c.dyn.Resource(mapping.Resource).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// percentile of sorted values, by the nearest-rank method.
func percentile(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

// readyTracker records when each object of a burst was first seen done.
type readyTracker struct {
	mu    sync.Mutex
	n     int
	w     workload
	index map[string]int
	ready []time.Time
	seen  int
	done  chan struct{}
}

func newReadyTracker(n int, w workload) *readyTracker {
	t := &readyTracker{n: n, w: w, index: make(map[string]int, n), ready: make([]time.Time, n), done: make(chan struct{})}
	for i := range n {
		obj, _ := w.objects(i)[0].(metav1.Object)
		t.index[obj.GetName()] = i
	}
	return t
}

func (t *readyTracker) observe(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !t.w.ready(u) {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.index[u.GetName()]
	if !ok || !t.ready[i].IsZero() {
		return
	}
	t.ready[i] = now
	t.seen++
	if t.seen == t.n {
		close(t.done)
	}
}

func (t *readyTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seen
}

func (t *readyTracker) at(i int) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ready[i]
}
