package demovolume

import (
	"slices"
	"testing"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
)

func TestDesiredBackup(t *testing.T) {
	dv := newDemoVolume()
	b := desiredBackup(dv, holderRef, "data-20261128-000000", "fast", backup.TriggerSchedule)
	if got := ptr.Deref(b.Spec.Source.PersistentVolumeClaimName, ""); got != dv.Name {
		t.Errorf("source claim %q, want the DemoVolume's, %q", got, dv.Name)
	}
	if got := ptr.Deref(b.Spec.VolumeSnapshotClassName, ""); got != "fast" {
		t.Errorf("class %q, want fast", got)
	}
	if b.Namespace != dv.Namespace || !metav1.IsControlledBy(b, dv) || !ptr.Deref(b.OwnerReferences[0].BlockOwnerDeletion, false) {
		t.Errorf("not in the DemoVolume's namespace, controlled by it, blocking its deletion: %v %v", b.Namespace, b.OwnerReferences)
	}
	if b.Annotations[ownerUIDAnnotation] != string(dv.UID) {
		t.Errorf("annotations %v, want the DemoVolume's UID", b.Annotations)
	}
	if len(b.OwnerReferences) != 2 || b.OwnerReferences[1] != holderRef {
		t.Errorf("owners %v, want the DemoVolume and its namespace %v", b.OwnerReferences, holderRef)
	}
	for label, want := range map[string]string{kube.LabelName: backup.Kind, kube.LabelInstance: dv.Name, kube.LabelManagedBy: kube.ManagedBy, backup.TriggerLabel: backup.TriggerSchedule} {
		if b.Labels[label] != want {
			t.Errorf("label %s is %q, want %q", label, b.Labels[label], want)
		}
	}
}

func TestDueSlot(t *testing.T) {
	hourly, err := cron.ParseStandard("0 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	at := func(h, m int) time.Time { return time.Date(2026, 11, 28, h, m, 0, 0, time.UTC) }
	for _, tt := range []struct {
		name            string
		last, now       time.Time
		wantDue, wantAt time.Time
	}{
		{name: "none due yet", last: at(10, 0), now: at(10, 59), wantAt: at(11, 0)},
		{name: "one due", last: at(10, 0), now: at(11, 0), wantDue: at(11, 0), wantAt: at(12, 0)},
		{name: "several missed: the latest only", last: at(1, 0), now: at(11, 30), wantDue: at(11, 0), wantAt: at(12, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			due, next := dueSlot(hourly, tt.last, tt.now)
			if !due.Equal(tt.wantDue) || !next.Equal(tt.wantAt) {
				t.Errorf("due %v, next %v; want %v, %v", due, next, tt.wantDue, tt.wantAt)
			}
		})
	}
}

// snapshots makes backups named by readiness, newest first: "r" ready,
// "p" pending.
func snapshots(states ...string) []snapshotv1.VolumeSnapshot {
	list := make([]snapshotv1.VolumeSnapshot, 0, len(states))
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for i, s := range states {
		b := snapshotv1.VolumeSnapshot{ObjectMeta: metav1.ObjectMeta{
			Name: string(rune('a'+i)) + s, CreationTimestamp: metav1.NewTime(start.Add(-time.Duration(i) * time.Minute)),
		}}
		if s == "r" {
			b.Status = &snapshotv1.VolumeSnapshotStatus{ReadyToUse: ptr.To(true)}
		}
		list = append(list, b)
	}
	return list
}

func names(list []snapshotv1.VolumeSnapshot) []string {
	n := make([]string, 0, len(list))
	for _, b := range list {
		n = append(n, b.Name)
	}
	return n
}

func TestBackupsToPrune(t *testing.T) {
	for _, tt := range []struct {
		name   string
		states []string
		keep   int
		want   []string
	}{
		{name: "within keep", states: []string{"r", "r"}, keep: 2},
		{name: "the oldest beyond keep", states: []string{"r", "r", "r", "r"}, keep: 2, want: []string{"cr", "dr"}},
		{name: "never the newest ready", states: []string{"p", "p", "r", "r"}, keep: 2, want: []string{"dr"}},
		{name: "none ready: by age", states: []string{"p", "p", "p"}, keep: 1, want: []string{"bp", "cp"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := names(backupsToPrune(snapshots(tt.states...), tt.keep))
			if !slices.Equal(got, tt.want) {
				t.Errorf("pruned %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewestFirst(t *testing.T) {
	list := snapshots("r", "r", "r")
	list[0], list[2] = list[2], list[0]
	list = append(list, snapshotv1.VolumeSnapshot{ObjectMeta: metav1.ObjectMeta{Name: "z", CreationTimestamp: list[1].CreationTimestamp}})
	newestFirst(list)
	if got := names(list); !slices.Equal(got, []string{"ar", "z", "br", "cr"}) {
		t.Errorf("order %v: newest first, then by name", got)
	}
}
