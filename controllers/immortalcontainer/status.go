package immortalcontainer

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reasons of the Ready condition.
const (
	reasonPodPending     = "PodPending"
	reasonPodNotReady    = "PodNotReady"
	reasonPodReady       = "PodReady"
	reasonPodTerminating = "PodTerminating"
	reasonPodReplacing   = "PodReplacing"
	reasonStarting       = "Starting"
)

// computeStatus rebuilds an ImmortalContainer's status from its pod, as the
// reconcile found or left it, and from the error of the step it took;
// replacing tells whether a pod being deleted is one it replaces.
func computeStatus(ic *seedv1alpha1.ImmortalContainer, pod *corev1.Pod, now time.Time, replacing bool, stepErr error) {
	ic.Status.ObservedGeneration = ic.Generation
	ic.Status.NextStartTime = nil
	ic.Status.CurrentPod = ""
	if pod != nil {
		ic.Status.CurrentPod = pod.Name
	}

	switch {
	case stepErr != nil:
		setReady(ic, metav1.ConditionFalse, apply.FailureReason(stepErr), stepErr.Error())
	case pod == nil:
		if next := nextStart(ic.Status.StartTimes); next.After(now) {
			ic.Status.NextStartTime = &metav1.Time{Time: next}
			setReady(ic, metav1.ConditionFalse, reasonBackingOff, fmt.Sprintf(
				"Pods keep ending soon after they start: the next one starts at %s", next.UTC().Format(time.RFC3339)))
			return
		}
		setReady(ic, metav1.ConditionFalse, reasonStarting, "Starting a pod")
	case !pod.DeletionTimestamp.IsZero():
		// A pod the ImmortalContainer is replacing stays so while it goes:
		// start reads that its successor is no repair.
		reason := reasonPodTerminating
		if replacing {
			reason = reasonPodReplacing
		}
		setReady(ic, metav1.ConditionFalse, reason, fmt.Sprintf("Waiting for pod %s to terminate before starting its replacement", pod.Name))
	case ended(pod):
		setReady(ic, metav1.ConditionFalse, reasonPodReplacing, fmt.Sprintf("Pod %s ended (%s); replacing it", pod.Name, pod.Status.Phase))
	case pod.Annotations[specHashAnnotation] != specHash(podSpec(ic)):
		// The reconcile has just deleted it, but holds it as it was: it must
		// not pass for a pod of the new spec.
		setReady(ic, metav1.ConditionFalse, reasonPodReplacing, fmt.Sprintf("Pod %s runs an earlier spec; replacing it", pod.Name))
	case pod.Status.Phase != corev1.PodRunning:
		setReady(ic, metav1.ConditionFalse, reasonPodPending, fmt.Sprintf("Pod %s is %s%s", pod.Name, phaseOrPending(pod), waitingReason(pod)))
	case !podReady(pod):
		setReady(ic, metav1.ConditionFalse, reasonPodNotReady, fmt.Sprintf("Pod %s is running but not ready", pod.Name))
	default:
		setReady(ic, metav1.ConditionTrue, reasonPodReady, fmt.Sprintf("Pod %s is running and ready", pod.Name))
	}
}

// replacing tells whether the ImmortalContainer's status says it is
// replacing its pod, or waiting to start the next: one that ended, or ran
// an earlier spec, rather than one someone else deleted.
func replacing(ic *seedv1alpha1.ImmortalContainer) bool {
	ready := meta.FindStatusCondition(ic.Status.Conditions, seedv1alpha1.ConditionReady)
	return ready != nil && (ready.Reason == reasonPodReplacing || ready.Reason == reasonBackingOff)
}

func setReady(ic *seedv1alpha1.ImmortalContainer, status metav1.ConditionStatus, reason, message string) {
	kube.SetCondition(ic, seedv1alpha1.ConditionReady, status, reason, message)
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func phaseOrPending(pod *corev1.Pod) corev1.PodPhase {
	if pod.Status.Phase == "" {
		return corev1.PodPending
	}
	return pod.Status.Phase
}

// waitingReason says why the container is not running yet, such as
// ImagePullBackOff, when the kubelet says so.
func waitingReason(pod *corev1.Pod) string {
	for _, s := range pod.Status.ContainerStatuses {
		if s.State.Waiting != nil && s.State.Waiting.Reason != "" {
			return fmt.Sprintf(": %s: %s", s.State.Waiting.Reason, s.State.Waiting.Message)
		}
	}
	return ""
}
