package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// busyLimit is how many objects of the kinds a burst makes a namespace
// outside the benchmark's may hold before the cluster counts as holding
// another burst: a baseline measured beside thousands of objects is
// slower, and the ratios to it flatter the operator.
const busyLimit = 100

// burstResources are the kinds of object the bursts make.
var burstResources = []schema.GroupVersionResource{
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "batch", Version: "v1", Resource: "jobs"},
	{Version: "v1", Resource: "pods"},
	{Version: "v1", Resource: "services"},
	{Version: "v1", Resource: "persistentvolumeclaims"},
}

// checkQuiet refuses a cluster whose namespaces, other than the
// benchmark's own (which each size deletes before it starts), hold more
// than busyLimit objects of the kinds the bursts make.
func (c *clients) checkQuiet(ctx context.Context) error {
	counts := map[string]map[string]int{}
	for _, gvr := range burstResources {
		list, err := c.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing %s: %w", gvr.Resource, err)
		}
		for _, item := range list.Items {
			if strings.HasPrefix(item.GetNamespace(), "bench-") {
				continue
			}
			if counts[item.GetNamespace()] == nil {
				counts[item.GetNamespace()] = map[string]int{}
			}
			counts[item.GetNamespace()][gvr.Resource]++
		}
	}
	return busy(counts)
}

// busy names the namespaces that hold more than busyLimit objects, from
// their counts by resource, or is nil when none does.
func busy(counts map[string]map[string]int) error {
	var crowded []string
	for _, namespace := range slices.Sorted(maps.Keys(counts)) {
		all := 0
		for _, n := range counts[namespace] {
			all += n
		}
		if all > busyLimit {
			crowded = append(crowded, namespace+byResource(counts[namespace]))
		}
	}
	if len(crowded) == 0 {
		return nil
	}
	return fmt.Errorf("the cluster holds another burst's objects, in %s: a baseline measured beside them is slower, "+
		"and the ratios to it would flatter the operator; delete them, or measure anyway with -allow-busy (BENCH_ALLOW_BUSY=true)",
		strings.Join(crowded, "; "))
}
