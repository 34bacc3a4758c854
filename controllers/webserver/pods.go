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

// pods are the WebServer's pods, from the manager's cache.
func (r *Reconciler) pods(ctx context.Context, namespace, name string) ([]corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels(kube.SelectorLabels(kind, name))); err != nil {
		return nil, fmt.Errorf("listing the pods of WebServer %s: %w", name, err)
	}
	return pods.Items, nil
}

// webServerOfPod maps a pod to the WebServer it runs for, by its labels.
func webServerOfPod(_ context.Context, pod client.Object) []ctrl.Request {
	labels := pod.GetLabels()
	if labels[kube.LabelName] != kind || labels[kube.LabelInstance] == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: pod.GetNamespace(), Name: labels[kube.LabelInstance]}}}
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
