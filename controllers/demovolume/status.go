package demovolume

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
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

	dv.Status.RestoredFrom = backupSource(pvc)

	var waiting *refusal
	waits := errors.As(applyErr, &waiting)
	bound := pvc.Status.Phase == corev1.ClaimBound
	switch {
	case waits:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeBound, metav1.ConditionFalse, reasonPending,
			"No claim is made until the backup to restore can be: "+waiting.message)
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

	restoredCondition(dv, pvc, waiting)

	want := claimSize(dv)
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
	case waits:
		ready(metav1.ConditionFalse, waiting.reason, waiting.message)
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

// restoredCondition says what the claim was made from: a backup, or
// nothing; before it is made, why it waits.
func restoredCondition(dv *seedv1alpha1.DemoVolume, pvc *corev1.PersistentVolumeClaim, waiting *refusal) {
	switch {
	case waiting != nil:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeRestored, metav1.ConditionFalse, waiting.reason, waiting.message)
	case pvc.Name == "":
	case dv.Status.RestoredFrom != "":
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeRestored, metav1.ConditionTrue, reasonFromBackup,
			fmt.Sprintf("Claim %s was made from backup %s", pvc.Name, dv.Status.RestoredFrom))
	default:
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeRestored, metav1.ConditionFalse, reasonMadeEmpty, fmt.Sprintf("Claim %s was made empty", pvc.Name))
	}
}

// computeBackupStatus lists the backups, records the schedule's time and
// the request of those taken, and sets BackedUp when the spec asks for
// backups.
func computeBackupStatus(dv *seedv1alpha1.DemoVolume, b *backups) {
	dv.Status.Backups = backupStatuses(b.list)
	if !b.scheduled.IsZero() {
		dv.Status.LastScheduledBackupTime = &metav1.Time{Time: b.scheduled}
	}
	if b.request != "" {
		dv.Status.LastBackupRequest = b.request
	}
	if dv.Spec.Backup == nil {
		meta.RemoveStatusCondition(&dv.Status.Conditions, seedv1alpha1.DemoVolumeBackedUp)
		return
	}
	backedUp := func(status metav1.ConditionStatus, reason, message string) {
		kube.SetCondition(dv, seedv1alpha1.DemoVolumeBackedUp, status, reason, message)
	}
	switch {
	case b.refusal != nil:
		backedUp(metav1.ConditionFalse, b.refusal.reason, b.refusal.message)
	case len(b.list) == 0:
		backedUp(metav1.ConditionFalse, reasonNoBackupYet, "No backup has been taken yet")
	case dv.Status.Backups[0].Error != "":
		backedUp(metav1.ConditionFalse, reasonBackupFailed, fmt.Sprintf("Backup %s failed: %s", b.list[0].Name, dv.Status.Backups[0].Error))
	case !dv.Status.Backups[0].ReadyToUse:
		backedUp(metav1.ConditionFalse, reasonBackupInProgress, fmt.Sprintf("Backup %s is being taken", b.list[0].Name))
	default:
		backedUp(metav1.ConditionTrue, reasonBackupReady, fmt.Sprintf("Backup %s is ready to restore from", b.list[0].Name))
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
