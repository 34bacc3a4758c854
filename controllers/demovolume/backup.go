package demovolume

import (
	"cmp"
	"slices"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// snapshotAPIGroup is the API group of the backups, as a claim's data
// source names it.
const snapshotAPIGroup = "snapshot.storage.k8s.io"

// SnapshotGVK is the kind of the backups.
var SnapshotGVK = snapshotv1.SchemeGroupVersion.WithKind("VolumeSnapshot")

// desiredBackup is a VolumeSnapshot of dv's claim, of class, owned by dv
// and held by its namespace (holder).
func desiredBackup(dv *seedv1alpha1.DemoVolume, holder metav1.OwnerReference, name, class, trigger string) *snapshotv1.VolumeSnapshot {
	labels := kube.Labels(backup.Kind, dv.Name)
	labels[backup.TriggerLabel] = trigger
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
	newestReady := slices.IndexFunc(backups, backup.IsReady)
	var prune []snapshotv1.VolumeSnapshot
	for i, b := range backups[keep:] {
		if keep+i != newestReady {
			prune = append(prune, b)
		}
	}
	return prune
}

// backupStatuses are the backups as status.backups lists them.
func backupStatuses(backups []snapshotv1.VolumeSnapshot) []seedv1alpha1.DemoVolumeBackupStatus {
	statuses := make([]seedv1alpha1.DemoVolumeBackupStatus, 0, len(backups))
	for _, b := range backups {
		s := seedv1alpha1.DemoVolumeBackupStatus{Name: b.Name, ReadyToUse: backup.IsReady(b)}
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
