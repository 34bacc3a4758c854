package demovolume

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reasons of a DemoVolume's conditions.
const (
	reasonBound        = "Bound"
	reasonPending      = "Pending"
	reasonLost         = "Lost"
	reasonResizing     = "Resizing"
	reasonAtSize       = "AtRequestedSize"
	reasonAwaitingSize = "AwaitingCapacity"
)

// computeStatus rebuilds a DemoVolume's status from its claim, as the API
// server last returned it, and from the error of applying it.
func computeStatus(dv *seedv1alpha1.DemoVolume, pvc *corev1.PersistentVolumeClaim, applyErr error) {
	dv.Status.ObservedGeneration = dv.Generation
	dv.Status.Name = dv.Spec.Name
	dv.Status.ClaimName = pvc.Name
	dv.Status.Phase = pvc.Status.Phase
	dv.Status.Capacity = ""
	capacity, hasCapacity := pvc.Status.Capacity[corev1.ResourceStorage]
	if hasCapacity {
		dv.Status.Capacity = capacity.String()
	}

	bound := pvc.Status.Phase == corev1.ClaimBound
	switch {
	case apply.IsNameConflict(applyErr):
		// The claim of that name is someone else's: nothing is known of one
		// of this DemoVolume's.
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeBound, metav1.ConditionUnknown, seedv1alpha1.ReasonNameConflict,
			"The claim's name is taken by a claim that is not this DemoVolume's")
	case bound:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeBound, metav1.ConditionTrue, reasonBound, fmt.Sprintf("Bound to volume %s", pvc.Spec.VolumeName))
	case pvc.Status.Phase == corev1.ClaimLost:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeBound, metav1.ConditionFalse, reasonLost, "The volume the claim was bound to is gone")
	default:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeBound, metav1.ConditionFalse, reasonPending,
			"Waiting for a volume to be provisioned or bound; with a WaitForFirstConsumer storage class, that happens when a pod uses the claim")
	}

	want := dv.SizeQuantity()
	resizing := bound && hasCapacity && capacity.Cmp(want) < 0
	if resizing {
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeResizing, metav1.ConditionTrue, resizeReason(pvc),
			fmt.Sprintf("Growing from %s to %s", capacity.String(), want.String()))
	} else {
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeResizing, metav1.ConditionFalse, reasonAtSize, "No resize is under way")
	}

	ready := func(status metav1.ConditionStatus, reason, message string) {
		kube.SetCondition(dv, seedv1alpha1.ConditionReady, status, reason, message)
	}
	switch {
	case applyErr != nil:
		ready(metav1.ConditionFalse, apply.FailureReason(applyErr), applyErr.Error())
	case !bound:
		ready(metav1.ConditionFalse, reasonPending, fmt.Sprintf("Claim %s is not bound", pvc.Name))
	case !hasCapacity:
		ready(metav1.ConditionFalse, reasonAwaitingSize, fmt.Sprintf("Claim %s reports no capacity yet", pvc.Name))
	case resizing:
		ready(metav1.ConditionFalse, reasonResizing, fmt.Sprintf("Claim %s is growing to %s", pvc.Name, want.String()))
	default:
		ready(metav1.ConditionTrue, reasonBound, fmt.Sprintf("Claim %s is bound, with %s", pvc.Name, capacity.String()))
	}
}

// resizeReason is the claim's own account of a resize in progress, such as
// FileSystemResizePending (the node finishes it when a pod mounts it).
func resizeReason(pvc *corev1.PersistentVolumeClaim) string {
	for _, c := range pvc.Status.Conditions {
		if c.Status == corev1.ConditionTrue {
			return string(c.Type)
		}
	}
	return reasonResizing
}
