package webserver

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// startingReasons are the reasons a container waits for while all is well.
var startingReasons = map[string]bool{"ContainerCreating": true, "PodInitializing": true}

// podProblem says why a WebServer's pod cannot run, as the scheduler or the
// kubelet report it (a pod that fits no node, an image that runs as root
// where the pod forbids it, an image that cannot be pulled, a container
// that keeps crashing), or "" when no pod has a problem. The Deployment's
// own status only counts pods that are not ready; this tells why.
func podProblem(pods []corev1.Pod) string {
	pods = slices.SortedFunc(slices.Values(pods), func(a, b corev1.Pod) int { return cmp.Compare(a.Name, b.Name) })
	for _, pod := range pods {
		if !pod.DeletionTimestamp.IsZero() {
			continue
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				return fmt.Sprintf("pod %s cannot be scheduled: %s", pod.Name, c.Message)
			}
		}
		for _, s := range pod.Status.ContainerStatuses {
			if w := s.State.Waiting; w != nil && !startingReasons[w.Reason] {
				return fmt.Sprintf("pod %s cannot run container %s: %s: %s", pod.Name, s.Name, w.Reason, w.Message)
			}
		}
	}
	return ""
}

// keepProblemStatus keeps of a pod's status what podProblem and
// whyNotReady read, for the cache: the scheduler's condition, the waiting
// containers' states, and which containers run and are not ready. The
// rest (IPs, start times, images, other conditions) is a quarter of what
// the cache would hold of a pod, and a WebServer has one to each replica.
func keepProblemStatus(obj client.Object) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	var kept corev1.PodStatus
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			kept.Conditions = append(kept.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
		}
	}
	for _, s := range pod.Status.ContainerStatuses {
		switch {
		case s.State.Waiting != nil:
			kept.ContainerStatuses = append(kept.ContainerStatuses,
				corev1.ContainerStatus{Name: s.Name, State: corev1.ContainerState{Waiting: s.State.Waiting}})
		case s.State.Running != nil && !s.Ready:
			kept.ContainerStatuses = append(kept.ContainerStatuses,
				corev1.ContainerStatus{Name: s.Name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
		}
	}
	pod.Status = kept
}

// podsByWebServer is the index of the cached pods by the WebServer they run
// for. A label selector would match it against every pod of the namespace
// on each reconcile: with 1,000 WebServers in one namespace, that was a
// tenth of the operator's CPU time.
const podsByWebServer = "seed.example.com/webserver"

// indexPods adds the podsByWebServer index to the manager's cache.
func indexPods(ctx context.Context, indexer client.FieldIndexer) error {
	err := indexer.IndexField(ctx, &corev1.Pod{}, podsByWebServer, func(pod client.Object) []string {
		if name := webServerName(pod); name != "" {
			return []string{name}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("indexing pods by WebServer: %w", err)
	}
	return nil
}

// pods are the WebServer's pods, from the manager's cache.
func (r *Reconciler) pods(ctx context.Context, namespace, name string) ([]corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(namespace), client.MatchingFields{podsByWebServer: name}); err != nil {
		return nil, fmt.Errorf("listing the pods of WebServer %s: %w", name, err)
	}
	return pods.Items, nil
}

// webServerOfPod maps a pod to the WebServer it runs for.
func webServerOfPod(_ context.Context, pod client.Object) []ctrl.Request {
	name := webServerName(pod)
	if name == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: pod.GetNamespace(), Name: name}}}
}

// webServerName is the name of the WebServer a pod runs for, from the
// labels its Deployment gives it, or "" for any other pod.
func webServerName(pod client.Object) string {
	labels := pod.GetLabels()
	if labels[kube.LabelName] != kind {
		return ""
	}
	return labels[kube.LabelInstance]
}

// podProblemChanged lets through only the pod events that change what the
// WebServer says of its pods: the Deployment's status already follows their
// readiness.
var podProblemChanged = predicate.Funcs{
	CreateFunc:  func(e event.CreateEvent) bool { return problemOf(e.Object) != "" },
	UpdateFunc:  func(e event.UpdateEvent) bool { return problemOf(e.ObjectOld) != problemOf(e.ObjectNew) },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func problemOf(obj client.Object) string {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return ""
	}
	return podProblem([]corev1.Pod{*pod})
}
