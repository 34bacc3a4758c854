// Package backup says what a DemoVolume's backup is: how it is named and
// labelled, when it is ready, and whether a DemoVolume can be restored
// from it. The operator and kubectl-seed share it, so that the plugin
// refuses a restore in the operator's own words before making anything.
package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// A DemoVolume's backups are VolumeSnapshots of its claim, labelled as its
// claim is but with Kind as their app.kubernetes.io/name, and with what
// took them.
const (
	// Kind is the app.kubernetes.io/name of a DemoVolume's backups, by
	// which a restore tells them from other snapshots.
	Kind = "demovolume-backup"
	// TriggerLabel says what took a backup: a schedule or a request.
	TriggerLabel    = "seed.example.com/backup-trigger"
	TriggerSchedule = "schedule"
	TriggerRequest  = "request"
)

// Reasons a restore is refused, as the DemoVolume's conditions give them.
const (
	ReasonNotFound = "BackupNotFound"
	ReasonNotReady = "BackupNotReady"
	ReasonTooLarge = "BackupTooLarge"
)

// ScheduledName names the backup of volume taken for a schedule's time:
// the same name for the same time, so that a backup taken before a failed
// status write is found, not taken again.
func ScheduledName(volume string, at time.Time) string {
	return volume + "-" + at.UTC().Format("20060102-150405")
}

// RequestedName names the backup of volume taken for a request, by the
// request's value, for the same reason.
func RequestedName(volume, request string) string {
	sum := sha256.Sum256([]byte(request))
	return volume + "-request-" + hex.EncodeToString(sum[:])[:10]
}

// IsReady says whether b can be restored from.
func IsReady(b snapshotv1.VolumeSnapshot) bool {
	return b.Status != nil && ptr.Deref(b.Status.ReadyToUse, false)
}

// NotFound is the refusal's message when no snapshot of that name is
// in the namespace.
func NotFound(name, namespace string) string {
	return fmt.Sprintf("No backup %s in namespace %s", name, namespace)
}

// RestoreRefusal says why b cannot be restored into a claim of size, or
// nothing when it can: it must be a backup a DemoVolume took, ready, and
// no larger than the claim.
func RestoreRefusal(b *snapshotv1.VolumeSnapshot, size resource.Quantity) (reason, message string) {
	switch {
	case b.Labels[kube.LabelName] != Kind || b.Labels[kube.LabelManagedBy] != kube.ManagedBy:
		return ReasonNotFound, fmt.Sprintf("VolumeSnapshot %s is not a backup of a DemoVolume: only those are restored", b.Name)
	case !IsReady(*b):
		return ReasonNotReady, fmt.Sprintf("Backup %s is not ready to restore from yet", b.Name)
	case b.Status.RestoreSize != nil && b.Status.RestoreSize.Cmp(size) > 0:
		return ReasonTooLarge, fmt.Sprintf("Backup %s needs %s, more than the %s of spec.size",
			b.Name, b.Status.RestoreSize.String(), size.String())
	}
	return "", ""
}
