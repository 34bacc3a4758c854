package demovolume

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// A DemoVolume's backups are VolumeSnapshots of its claim, owned by it,
// labelled as its claim is and with what took them.
const (
	// backupKind is the app.kubernetes.io/name of a DemoVolume's backups,
	// by which a restore tells them from other snapshots.
	backupKind = "demovolume-backup"
	// triggerLabel says what took a backup: a schedule or a request.
	triggerLabel     = "seed.example.com/backup-trigger"
	triggerSchedule  = "schedule"
	triggerRequest   = "request"
	snapshotAPIGroup = "snapshot.storage.k8s.io"
)

// SnapshotGVK is the kind of the backups.
var SnapshotGVK = snapshotv1.SchemeGroupVersion.WithKind("VolumeSnapshot")

// desiredBackup is a VolumeSnapshot of dv's claim, of class, owned by dv
// and held by its namespace (holder).
func desiredBackup(dv *seedv1alpha1.DemoVolume, holder metav1.OwnerReference, name, class, trigger string) *snapshotv1.VolumeSnapshot {
	labels := kube.Labels(backupKind, dv.Name)
	labels[triggerLabel] = trigger
	return &snapshotv1.VolumeSnapshot{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: dv.Namespace, Labels: labels,
			Annotations:     map[string]string{ownerUIDAnnotation: string(dv.UID)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(dv, gvk), holder},
		},
		Spec: snapshotv1.VolumeSnapshotSpec{
			Source:                  snapshotv1.VolumeSnapshotSource{PersistentVolumeClaimName: ptr.To(dv.Name)},
			VolumeSnapshotClassName: ptr.To(class),
		},
	}
}

// scheduledBackupName names the backup of a schedule's time: the same
// name for the same time, so that a backup taken before a failed status
// write is found, not taken again.
func scheduledBackupName(dv *seedv1alpha1.DemoVolume, at time.Time) string {
	return dv.Name + "-" + at.UTC().Format("20060102-150405")
}

// requestedBackupName names the backup of a request, by the request's
// value, for the same reason.
func requestedBackupName(dv *seedv1alpha1.DemoVolume, request string) string {
	sum := sha256.Sum256([]byte(request))
	return dv.Name + "-request-" + hex.EncodeToString(sum[:])[:10]
}

// maxMissedSlots bounds the times a schedule is stepped through to find
// the latest one due, as the CronJob controller bounds its own.
const maxMissedSlots = 1000

// dueSlot is the latest time of schedule after last and at or before now,
// if any, and the first time after now, when the next backup is due.
func dueSlot(schedule cron.Schedule, last, now time.Time) (due time.Time, next time.Time) {
	for t, i := schedule.Next(last), 0; !t.After(now) && !t.IsZero() && i < maxMissedSlots; t, i = schedule.Next(t), i+1 {
		due = t
	}
	return due, schedule.Next(now)
}

// newestFirst sorts backups by when they were made, the newest first, and
// by name among those made in the same second.
func newestFirst(backups []snapshotv1.VolumeSnapshot) {
	slices.SortFunc(backups, func(a, b snapshotv1.VolumeSnapshot) int {
		return cmp.Or(b.CreationTimestamp.Compare(a.CreationTimestamp.Time), cmp.Compare(b.Name, a.Name))
	})
}

// backupsToPrune are the backups beyond the keep newest, from a list
// sorted newest first; the newest ready one is never among them, so that a
// volume can always be restored while backups fail.
func backupsToPrune(backups []snapshotv1.VolumeSnapshot, keep int) []snapshotv1.VolumeSnapshot {
	if len(backups) <= keep {
		return nil
	}
	newestReady := slices.IndexFunc(backups, isReady)
	var prune []snapshotv1.VolumeSnapshot
	for i, b := range backups[keep:] {
		if keep+i != newestReady {
			prune = append(prune, b)
		}
	}
	return prune
}

func isReady(b snapshotv1.VolumeSnapshot) bool {
	return b.Status != nil && ptr.Deref(b.Status.ReadyToUse, false)
}

// backupStatuses are the backups as status.backups lists them.
func backupStatuses(backups []snapshotv1.VolumeSnapshot) []seedv1alpha1.DemoVolumeBackupStatus {
	statuses := make([]seedv1alpha1.DemoVolumeBackupStatus, 0, len(backups))
	for _, b := range backups {
		s := seedv1alpha1.DemoVolumeBackupStatus{Name: b.Name, ReadyToUse: isReady(b)}
		if b.Status != nil {
			s.CreationTime = b.Status.CreationTime
			if b.Status.RestoreSize != nil {
				s.Size = b.Status.RestoreSize.String()
			}
			if b.Status.Error != nil {
				s.Error = ptr.Deref(b.Status.Error.Message, "failed")
			}
		}
		statuses = append(statuses, s)
	}
	return statuses
}

// restoreRefusal says why backup cannot be restored into dv, or nothing
// when it can: it must be a backup a DemoVolume of the namespace took,
// ready, and no larger than dv.
func restoreRefusal(dv *seedv1alpha1.DemoVolume, backup *snapshotv1.VolumeSnapshot) (reason, message string) {
	name := backup.Name
	switch {
	case backup.Labels[kube.LabelName] != backupKind || backup.Labels[kube.LabelManagedBy] != kube.ManagedBy:
		return reasonBackupNotFound, fmt.Sprintf("VolumeSnapshot %s is not a backup of a DemoVolume: only those are restored", name)
	case !isReady(*backup):
		return reasonBackupNotReady, fmt.Sprintf("Backup %s is not ready to restore from yet", name)
	case backup.Status.RestoreSize != nil && backup.Status.RestoreSize.Cmp(claimSize(dv)) > 0:
		size := claimSize(dv)
		return reasonBackupTooLarge, fmt.Sprintf("Backup %s needs %s, more than the %s of spec.size",
			name, backup.Status.RestoreSize.String(), size.String())
	}
	return "", ""
}
