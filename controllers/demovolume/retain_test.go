package demovolume

import (
	"testing"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
)

func TestKeptMessage(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}}
	for _, tt := range []struct {
		name    string
		pvc     *corev1.PersistentVolumeClaim
		backups []string
		want    string
	}{
		{name: "nothing kept"},
		{name: "the claim", pvc: pvc, want: "Kept PersistentVolumeClaim data and its data, labelled seed.example.com/retained=true"},
		{name: "the claim and a backup", pvc: pvc, backups: []string{"data-1"},
			want: "Kept PersistentVolumeClaim data and its data, and 1 backup (data-1), labelled seed.example.com/retained=true"},
		{name: "backups, the claim gone", backups: []string{"data-1", "data-2"},
			want: "Kept 2 backups (data-1, data-2), labelled seed.example.com/retained=true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := keptMessage(tt.pvc, tt.backups); got != tt.want {
				t.Errorf("keptMessage:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestDisownAdopt follows a backup through a deletion under Retain and a
// DemoVolume of the same name made again, and checks what neither takes.
func TestDisownAdopt(t *testing.T) {
	first := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.UID = "first" })
	second := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.UID = "second" })
	b := desiredBackup(first, holderRef, "data-1", "class", backup.TriggerRequest)

	if adopt(second, backup.Kind, holderRef, b) {
		t.Fatal("adopted a backup another DemoVolume controls")
	}
	if !disown(first.Name, backup.Kind, b) || len(b.OwnerReferences) != 0 || b.Labels[retainedLabel] != trueValue {
		t.Fatalf("disowned: %+v", b.ObjectMeta)
	}
	if disown(first.Name, backup.Kind, b) {
		t.Error("disowned twice")
	}
	if adopt(second, kind, holderRef, b) {
		t.Error("adopted a backup as a claim")
	}
	if !adopt(second, backup.Kind, holderRef, b) || !metav1.IsControlledBy(b, second) || b.Labels[retainedLabel] != "" ||
		len(b.OwnerReferences) != 2 || b.OwnerReferences[1] != holderRef {
		t.Fatalf("adopted: %+v", b.ObjectMeta)
	}
	if adopt(second, backup.Kind, holderRef, b) {
		t.Error("adopted twice")
	}

	for _, tt := range []struct {
		name   string
		mutate func(*snapshotv1.VolumeSnapshot)
	}{
		{name: "not labelled as retained", mutate: func(b *snapshotv1.VolumeSnapshot) { delete(b.Labels, retainedLabel) }},
		{name: "of another DemoVolume's name", mutate: func(b *snapshotv1.VolumeSnapshot) { b.Labels["app.kubernetes.io/instance"] = "other" }},
		{name: "not managed by the operator", mutate: func(b *snapshotv1.VolumeSnapshot) { delete(b.Labels, "app.kubernetes.io/managed-by") }},
		{name: "controlled by another owner", mutate: func(b *snapshotv1.VolumeSnapshot) {
			b.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(first, corev1.SchemeGroupVersion.WithKind("ConfigMap"))}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := desiredBackup(first, holderRef, "data-1", "class", backup.TriggerRequest)
			disown(first.Name, backup.Kind, b)
			tt.mutate(b)
			if adopt(second, backup.Kind, holderRef, b) {
				t.Errorf("adopted: %+v", b.ObjectMeta)
			}
		})
	}
}

// TestLeftBy checks which objects count as left by a deleted DemoVolume,
// for the operator to act on its reclaim policy.
func TestLeftBy(t *testing.T) {
	deleted := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.UID = "deleted" })
	current := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.UID = "current" })
	for _, tt := range []struct {
		name    string
		mutate  func(*snapshotv1.VolumeSnapshot)
		current types.UID
		want    bool
	}{
		{name: "controlled by the deleted one", want: true},
		{name: "controlled by the deleted one, one of the name made since", current: current.UID, want: true},
		{name: "controlled by the one of the name", current: deleted.UID},
		{name: "its reference dropped by the garbage collector", want: true,
			mutate: func(b *snapshotv1.VolumeSnapshot) { b.OwnerReferences = []metav1.OwnerReference{holderRef} }},
		{name: "labelled as the operator's, never held by the namespace: someone else's", mutate: func(b *snapshotv1.VolumeSnapshot) {
			b.OwnerReferences = nil
		}},
		{name: "its references dropped, unlabelled", mutate: func(b *snapshotv1.VolumeSnapshot) {
			b.OwnerReferences = nil
			delete(b.Labels, "app.kubernetes.io/managed-by")
		}},
		{name: "kept already", mutate: func(b *snapshotv1.VolumeSnapshot) { disown(deleted.Name, backup.Kind, b) }},
		{name: "of another name", mutate: func(b *snapshotv1.VolumeSnapshot) {
			b.OwnerReferences = nil
			b.Labels["app.kubernetes.io/instance"] = "other"
		}},
		{name: "controlled by a DemoVolume of another name", mutate: func(b *snapshotv1.VolumeSnapshot) {
			b.OwnerReferences[0].Name = "other"
		}},
		{name: "controlled by another kind", mutate: func(b *snapshotv1.VolumeSnapshot) {
			b.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(deleted, corev1.SchemeGroupVersion.WithKind("ConfigMap"))}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := desiredBackup(deleted, holderRef, "data-1", "class", backup.TriggerRequest)
			if tt.mutate != nil {
				tt.mutate(b)
			}
			if got := leftBy("data", backup.Kind, tt.current)(b); got != tt.want {
				t.Errorf("leftBy = %t, want %t: %+v", got, tt.want, b.ObjectMeta)
			}
			if leftBy("data", kind, tt.current)(b) && metav1.GetControllerOf(b) == nil {
				t.Error("a backup taken for a claim")
			}
		})
	}
}
