package demovolume

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
)

func TestDeletions(t *testing.T) {
	key := types.NamespacedName{Namespace: "team-a", Name: "data"}
	first := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) {
		dv.UID = "first"
		dv.Status.ClaimName = "data"
	})
	second := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) {
		dv.UID = "second"
		dv.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete
	})
	d := &deletions{}

	if d.lastOf(key) != nil {
		t.Fatal("a deletion known before any was seen")
	}
	d.observe(toolscache.DeletedFinalStateUnknown{Key: "team-a/data", Obj: first})
	if d.lastOf(key) != nil {
		t.Fatal("a deletion whose last state is unknown taken for known")
	}
	d.observe(first)
	first.Spec.ReclaimPolicy = seedv1alpha1.ReclaimDelete
	if last := d.lastOf(key); last == nil || last.UID != "first" || last.Spec.ReclaimPolicy != seedv1alpha1.ReclaimRetain {
		t.Fatalf("last state %+v, want first's as it was deleted", last)
	}
	if last := d.lastOf(key); last.Status.ClaimName != "" || last.Spec.Size != 0 {
		t.Errorf("remembered more than which it was and its policy: %+v", last)
	}
	d.observe(second)
	d.forget(key, "first")
	if last := d.lastOf(key); last == nil || last.UID != "second" {
		t.Fatalf("forgetting first forgot %+v", last)
	}
	d.forget(key, "second")
	if d.lastOf(key) != nil {
		t.Error("second remembered after it was acted on")
	}
}

func TestOwnedBy(t *testing.T) {
	dv := newDemoVolume()
	other := newDemoVolume(func(dv *seedv1alpha1.DemoVolume) { dv.UID = "other" })
	for _, tt := range []struct {
		name string
		obj  func() client.Object
		want bool
	}{
		{name: "controlled by it", want: true, obj: func() client.Object { return desiredBackup(dv, holderRef, "b", "c", backup.TriggerRequest) }},
		{name: "its reference dropped, annotated with its UID", want: true, obj: func() client.Object {
			b := desiredBackup(dv, holderRef, "b", "c", backup.TriggerRequest)
			b.OwnerReferences = []metav1.OwnerReference{holderRef}
			return b
		}},
		{name: "an earlier one's of the name, its reference dropped", obj: func() client.Object {
			b := desiredBackup(other, holderRef, "b", "c", backup.TriggerRequest)
			b.OwnerReferences = []metav1.OwnerReference{holderRef}
			return b
		}},
		{name: "annotated with its UID, controlled by another", obj: func() client.Object {
			b := desiredBackup(other, holderRef, "b", "c", backup.TriggerRequest)
			b.Annotations[ownerUIDAnnotation] = string(dv.UID)
			return b
		}},
		{name: "kept", obj: func() client.Object {
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "team-a",
				Annotations: map[string]string{ownerUIDAnnotation: string(dv.UID)}}}
			disown(dv.Name, kind, pvc)
			return pvc
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ownedBy(dv, tt.obj()); got != tt.want {
				t.Errorf("ownedBy = %t, want %t", got, tt.want)
			}
		})
	}
}
