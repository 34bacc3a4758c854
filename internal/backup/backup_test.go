package backup

import (
	"testing"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/seed-operators/seed-operator/internal/kube"
)

func TestNames(t *testing.T) {
	at := time.Date(2026, 11, 28, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	if got, want := ScheduledName("data", at), "data-20261128-020405"; got != want {
		t.Errorf("scheduled: %q, want %q (UTC)", got, want)
	}
	first, again, other := RequestedName("data", "1"), RequestedName("data", "1"), RequestedName("data", "2")
	if first != again || first == other || first != "data-request-6b86b273ff" {
		t.Errorf("requested: %q, %q, %q: the same request names the same backup, another another", first, again, other)
	}
}

func TestRestoreRefusal(t *testing.T) {
	backup := func(mutate func(*snapshotv1.VolumeSnapshot)) *snapshotv1.VolumeSnapshot {
		b := &snapshotv1.VolumeSnapshot{
			ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: kube.Labels(Kind, "data")},
			Status:     &snapshotv1.VolumeSnapshotStatus{ReadyToUse: ptr.To(true), RestoreSize: ptr.To(resource.MustParse("10Gi"))},
		}
		mutate(b)
		return b
	}
	size := resource.MustParse("10Gi")
	for _, tt := range []struct {
		name   string
		backup *snapshotv1.VolumeSnapshot
		want   string
	}{
		{name: "a ready backup that fits", backup: backup(func(*snapshotv1.VolumeSnapshot) {})},
		{name: "a ready backup of unknown size", backup: backup(func(b *snapshotv1.VolumeSnapshot) { b.Status.RestoreSize = nil })},
		{name: "not a DemoVolume's backup", backup: backup(func(b *snapshotv1.VolumeSnapshot) { b.Labels = nil }), want: ReasonNotFound},
		{name: "a DemoVolume's name by another manager", backup: backup(func(b *snapshotv1.VolumeSnapshot) {
			b.Labels[kube.LabelManagedBy] = "someone"
		}), want: ReasonNotFound},
		{name: "not ready", backup: backup(func(b *snapshotv1.VolumeSnapshot) { b.Status.ReadyToUse = ptr.To(false) }), want: ReasonNotReady},
		{name: "no status yet", backup: backup(func(b *snapshotv1.VolumeSnapshot) { b.Status = nil }), want: ReasonNotReady},
		{name: "larger than the volume", backup: backup(func(b *snapshotv1.VolumeSnapshot) {
			b.Status.RestoreSize = ptr.To(resource.MustParse("11Gi"))
		}), want: ReasonTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if reason, message := RestoreRefusal(tt.backup, size); reason != tt.want || (reason != "") != (message != "") {
				t.Errorf("refusal %q (%q), want %q", reason, message, tt.want)
			}
		})
	}
}
