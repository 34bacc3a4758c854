package demovolume

import (
	"context"
	"errors"
	"fmt"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reasons of the BackedUp and Restored conditions, and of Ready when a
// restore cannot be made.
const (
	reasonSnapshotsUnavailable = "SnapshotAPIUnavailable"
	reasonNoSnapshotClass      = "NoSnapshotClass"
	reasonBackupConflict       = "BackupNameConflict"
	reasonNoBackupYet          = "NoBackupYet"
	reasonBackupInProgress     = "BackupInProgress"
	reasonBackupFailed         = "BackupFailed"
	reasonBackupReady          = "BackupReady"
	reasonBackupTaken          = "BackupTaken"
	reasonFromBackup           = "FromBackup"
	reasonRestoredOnLoss       = "RestoredOnLoss"
	reasonMadeEmpty            = "MadeEmpty"
	reasonClaimLost            = "ClaimLost"
)

// defaultKeep is spec.backup.keep's default, for a DemoVolume that an
// older CRD admitted without it.
const defaultKeep = 3

// isDefaultSnapshotClass is the annotation of the VolumeSnapshotClass a
// CSI driver's snapshots take when they name none.
const isDefaultSnapshotClass = "snapshot.storage.kubernetes.io/is-default-class"

// backups is what a reconcile learned of a DemoVolume's backups.
type backups struct {
	// list is the DemoVolume's backups, newest first.
	list []snapshotv1.VolumeSnapshot
	// refusal says why no backup can be taken, when none can.
	refusal *refusal
	// next is when the next scheduled backup is due.
	next time.Time
	// scheduled is the schedule's time of a backup taken, and request the
	// request one was taken for.
	scheduled time.Time
	request   string
	// holder is the owner reference by which the namespace holds them.
	holder metav1.OwnerReference
}

// refusal is why the operator cannot do what a spec asks, yet: the reason
// and message of a condition.
type refusal struct {
	reason, message string
}

func (r *refusal) Error() string { return r.message }

// listBackups lists, from the cache, the snapshots labelled as backups of
// a DemoVolume of dv's name: dv's own, and those a deleted one kept or
// left.
func (r *Reconciler) listBackups(ctx context.Context, dv *seedv1alpha1.DemoVolume) ([]snapshotv1.VolumeSnapshot, error) {
	if !r.Snapshots {
		return nil, nil
	}
	list := &snapshotv1.VolumeSnapshotList{}
	if err := r.List(ctx, list, client.InNamespace(dv.Namespace), client.MatchingLabels(kube.SelectorLabels(backup.Kind, dv.Name))); err != nil {
		return nil, fmt.Errorf("listing the backups: %w", err)
	}
	return list.Items, nil
}

// backUp takes the backups that are due, a requested one and a scheduled
// one, and deletes those beyond spec.backup.keep.
func (r *Reconciler) backUp(ctx context.Context, dv *seedv1alpha1.DemoVolume, pvc *corev1.PersistentVolumeClaim, b *backups) error {
	spec := dv.Spec.Backup
	switch {
	case spec == nil:
		return nil
	case !r.Snapshots:
		b.refusal = &refusal{reasonSnapshotsUnavailable, "The cluster served no VolumeSnapshot API (snapshot.storage.k8s.io/v1) " +
			"when the operator started: install the snapshot CRDs and controller, then restart the operator"}
		return nil
	case pvc.Status.Phase != corev1.ClaimBound:
		return nil
	}
	class, refused, err := r.snapshotClass(ctx, dv, pvc)
	if err != nil || refused != nil {
		b.refusal = refused
		return err
	}
	var errs []error
	// What was taken is recorded only once it is: a take that failed, or
	// found its name taken, is tried again.
	if request := dv.Annotations[seedv1alpha1.BackupAnnotation]; request != "" && request != dv.Status.LastBackupRequest {
		taken, err := r.take(ctx, dv, desiredBackup(dv, b.holder, backup.RequestedName(dv.Name, request), class, backup.TriggerRequest), b)
		errs = append(errs, err)
		if taken {
			b.request = request
		}
	}
	if spec.Schedule != "" {
		schedule, err := cron.ParseStandard(string(spec.Schedule))
		if err != nil {
			return fmt.Errorf("parsing schedule %q: %w", spec.Schedule, err)
		}
		last := dv.CreationTimestamp.Time
		if dv.Status.LastScheduledBackupTime != nil {
			last = dv.Status.LastScheduledBackupTime.Time
		}
		due, next := dueSlot(schedule, last, time.Now())
		if !due.IsZero() {
			taken, err := r.take(ctx, dv, desiredBackup(dv, b.holder, backup.ScheduledName(dv.Name, due), class, backup.TriggerSchedule), b)
			errs = append(errs, err)
			if taken {
				b.scheduled = due
			}
		}
		b.next = next
	}
	keep := int(spec.Keep)
	if keep == 0 {
		keep = defaultKeep
	}
	for _, old := range backupsToPrune(b.list, keep) {
		errs = append(errs, r.Applier.Remove(ctx, dv, client.ObjectKeyFromObject(&old), &snapshotv1.VolumeSnapshot{}))
	}
	return errors.Join(errs...)
}

// take creates a backup, unless it exists, and tells whether the backup is
// there: a backup of that name that is not dv's is left alone, and no
// other is taken in its place.
func (r *Reconciler) take(ctx context.Context, dv *seedv1alpha1.DemoVolume, snapshot *snapshotv1.VolumeSnapshot, b *backups) (bool, error) {
	created, err := r.Applier.Create(ctx, dv, snapshot)
	switch {
	case apply.IsNameConflict(err):
		b.refusal = &refusal{reasonBackupConflict, err.Error()}
		return false, nil
	case err != nil:
		return false, fmt.Errorf("taking backup %s: %w", snapshot.Name, err)
	case !created:
		return true, nil
	}
	b.list = append([]snapshotv1.VolumeSnapshot{*snapshot}, b.list...)
	r.Applier.Recorder.Eventf(dv, snapshot, corev1.EventTypeNormal, reasonBackupTaken, "Create",
		"Took backup %s of claim %s (%s)", snapshot.Name, dv.Name, snapshot.Labels[backup.TriggerLabel])
	return true, nil
}

// snapshotClass is the VolumeSnapshotClass of dv's backups: the one its
// spec names, or the default one of the claim's CSI driver.
func (r *Reconciler) snapshotClass(ctx context.Context, dv *seedv1alpha1.DemoVolume, pvc *corev1.PersistentVolumeClaim) (string, *refusal, error) {
	if name := dv.Spec.Backup.VolumeSnapshotClassName; name != nil {
		err := r.Applier.APIReader.Get(ctx, client.ObjectKey{Name: *name}, &snapshotv1.VolumeSnapshotClass{})
		if apierrors.IsNotFound(err) {
			return "", &refusal{reasonNoSnapshotClass, fmt.Sprintf("VolumeSnapshotClass %s does not exist", *name)}, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("getting VolumeSnapshotClass %s: %w", *name, err)
		}
		return *name, nil, nil
	}
	storageClass := ptr.Deref(pvc.Spec.StorageClassName, "")
	if storageClass == "" {
		return "", &refusal{reasonNoSnapshotClass,
			"The claim has no storage class, so no CSI driver to take snapshots: name a VolumeSnapshotClass in spec.backup"}, nil
	}
	sc := &storagev1.StorageClass{}
	err := r.Applier.APIReader.Get(ctx, client.ObjectKey{Name: storageClass}, sc)
	if apierrors.IsNotFound(err) {
		return "", &refusal{reasonNoSnapshotClass, fmt.Sprintf("Storage class %s does not exist, so no CSI driver to take snapshots", storageClass)}, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("getting StorageClass %s: %w", storageClass, err)
	}
	classes := &snapshotv1.VolumeSnapshotClassList{}
	if err := r.Applier.APIReader.List(ctx, classes); err != nil {
		return "", nil, fmt.Errorf("listing the VolumeSnapshotClasses: %w", err)
	}
	for _, c := range classes.Items {
		if c.Driver == sc.Provisioner && c.Annotations[isDefaultSnapshotClass] == trueValue {
			return c.Name, nil, nil
		}
	}
	return "", &refusal{reasonNoSnapshotClass, fmt.Sprintf(
		"No VolumeSnapshotClass is the default for %s, the driver of storage class %s: name one in spec.backup.volumeSnapshotClassName",
		sc.Provisioner, storageClass)}, nil
}

// claimSource is the backup a claim about to be made is made from, and
// the reason: after the claim was lost, with restoreOnLoss, the newest
// ready backup; else the one restoreFrom names, once it can be restored.
// None is an empty claim.
func (r *Reconciler) claimSource(ctx context.Context, dv *seedv1alpha1.DemoVolume, list []snapshotv1.VolumeSnapshot) (string, string, error) {
	if hadClaim(dv) && dv.Spec.Backup != nil && dv.Spec.Backup.RestoreOnLoss {
		for _, b := range list {
			if backup.IsReady(b) {
				return b.Name, reasonRestoredOnLoss, nil
			}
		}
	}
	if dv.Spec.RestoreFrom == nil {
		return "", "", nil
	}
	if !r.Snapshots {
		return "", "", &refusal{reasonSnapshotsUnavailable,
			"The cluster served no VolumeSnapshot API when the operator started, so no backup can be restored"}
	}
	name := dv.Spec.RestoreFrom.BackupName
	snapshot := &snapshotv1.VolumeSnapshot{}
	err := r.Get(ctx, client.ObjectKey{Namespace: dv.Namespace, Name: name}, snapshot)
	if apierrors.IsNotFound(err) {
		return "", "", &refusal{backup.ReasonNotFound, backup.NotFound(name, dv.Namespace)}
	}
	if err != nil {
		return "", "", fmt.Errorf("getting backup %s: %w", name, err)
	}
	if reason, message := backup.RestoreRefusal(snapshot, claimSize(dv)); reason != "" {
		return "", "", &refusal{reason, message}
	}
	return name, reasonFromBackup, nil
}
