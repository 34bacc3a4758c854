package demovolume

import (
	"context"
	"fmt"
	"slices"
	"strings"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Under the Retain policy, or when the operator did not see the deletion,
// a deleted DemoVolume's claim and backups stay, no longer owned and
// labelled as retained; a DemoVolume made again under the same name takes
// them back.
const (
	// retainedLabel marks a claim or a backup kept after its DemoVolume was
	// deleted, so that `kubectl get pvc,volumesnapshot -l
	// seed.example.com/retained=true` lists the data left behind.
	retainedLabel = "seed.example.com/retained"

	reasonRetained = "Retained"
	reasonAdopted  = "Adopted"
)

// keptMessage says what a deleted DemoVolume left: its claim (nil if it had
// none) and its backups, by name.
func keptMessage(pvc *corev1.PersistentVolumeClaim, backups []string) string {
	var kept []string
	if pvc != nil {
		kept = append(kept, fmt.Sprintf("PersistentVolumeClaim %s and its data", pvc.Name))
	}
	switch len(backups) {
	case 0:
	case 1:
		kept = append(kept, "1 backup ("+backups[0]+")")
	default:
		kept = append(kept, fmt.Sprintf("%d backups (%s)", len(backups), strings.Join(backups, ", ")))
	}
	if len(kept) == 0 {
		return ""
	}
	return fmt.Sprintf("Kept %s, labelled %s=true", strings.Join(kept, ", and "), retainedLabel)
}

// adoptBackups takes back the backups that a deleted DemoVolume of dv's
// name kept, from a list of dv's backups as the cache has them
// (listBackups), and returns those that are dv's, newest first.
func (r *Reconciler) adoptBackups(
	ctx context.Context, dv *seedv1alpha1.DemoVolume, holder metav1.OwnerReference, list []snapshotv1.VolumeSnapshot,
) ([]snapshotv1.VolumeSnapshot, error) {
	var owned []snapshotv1.VolumeSnapshot
	var adopted []string
	for i := range list {
		b := &list[i]
		if retainedFor(dv, backup.Kind)(b) {
			// The last try tells: one that found the backup adopted by an
			// earlier reconcile, which the cache had not seen, adopted
			// nothing.
			var took bool
			err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, b, func(obj client.Object) bool {
				took = adopt(dv, backup.Kind, holder, obj)
				return took
			})
			if err != nil {
				return nil, fmt.Errorf("adopting backup %s: %w", b.Name, err)
			}
			if took {
				adopted = append(adopted, b.Name)
			}
		}
		if !metav1.IsControlledBy(b, dv) {
			continue
		}
		// Taken by an earlier release, or held by a namespace of the same
		// name since deleted (the garbage collector dropped that
		// reference).
		if err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, b, func(obj client.Object) bool { return hold(dv, obj, holder) }); err != nil {
			return nil, fmt.Errorf("holding backup %s: %w", b.Name, err)
		}
		owned = append(owned, *b)
	}
	if len(adopted) > 0 {
		r.Applier.Recorder.Eventf(dv, nil, corev1.EventTypeNormal, reasonAdopted, "Adopt",
			"Took back backups %s, which a deleted DemoVolume of this name kept", strings.Join(adopted, ", "))
	}
	newestFirst(owned)
	return owned, nil
}

// disown makes obj, of kind, left by a deleted DemoVolume named name,
// one that stays: owned neither by it nor by its namespace, of no
// DemoVolume's UID, and labelled as the operator's and retained. Only its
// metadata changes: its spec is left as it is, as a claim's request may be
// one the API server refuses (a claim not bound yet, or whose storage
// class cannot expand). It tells whether obj changed.
func disown(name, kind string, obj client.Object) bool {
	refs := obj.GetOwnerReferences()
	kept := slices.DeleteFunc(slices.Clone(refs), func(ref metav1.OwnerReference) bool {
		return isHolder(ref) || refersTo(ref, name)
	})
	changed := len(kept) != len(refs)
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	want := kube.Labels(kind, name)
	want[retainedLabel] = trueValue
	for k, v := range want {
		if labels[k] != v {
			labels[k], changed = v, true
		}
	}
	annotations := obj.GetAnnotations()
	if _, ok := annotations[ownerUIDAnnotation]; ok {
		delete(annotations, ownerUIDAnnotation)
		changed = true
	}
	obj.SetOwnerReferences(kept)
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
	return changed
}

// adopt makes obj dv's again, if it is one of kind that a deleted
// DemoVolume of dv's name retained. It tells whether obj changed.
func adopt(dv *seedv1alpha1.DemoVolume, kind string, holder metav1.OwnerReference, obj client.Object) bool {
	if !retainedFor(dv, kind)(obj) {
		return false
	}
	labels := obj.GetLabels()
	obj.SetOwnerReferences(append(obj.GetOwnerReferences(), *metav1.NewControllerRef(dv, gvk)))
	hold(dv, obj, holder)
	delete(labels, retainedLabel)
	obj.SetLabels(labels)
	return true
}

// retainedFor tells whether an object is one of kind (the claim, or a
// backup) that a deleted DemoVolume of dv's name retained, and so dv may
// take back: the one adoption the operator makes. An object anyone else
// made, labelled or not, stays theirs.
func retainedFor(dv *seedv1alpha1.DemoVolume, kind string) apply.Adoptable {
	return func(obj client.Object) bool {
		labels := obj.GetLabels()
		return labels[retainedLabel] == trueValue && labels[kube.LabelName] == kind && labels[kube.LabelInstance] == dv.Name &&
			labels[kube.LabelManagedBy] == kube.ManagedBy && metav1.GetControllerOf(obj) == nil
	}
}
