package demovolume

import (
	"context"
	"fmt"
	"slices"
	"strings"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Under the Retain policy, a deleted DemoVolume's claim and backups stay,
// no longer owned, so that the garbage collector leaves them, and labelled
// as retained; a DemoVolume made again under the same name takes them
// back.
const (
	// retainedLabel marks a claim or a backup kept after its DemoVolume was
	// deleted, so that `kubectl get pvc,volumesnapshot -l
	// seed.example.com/retained=true` lists the data left behind.
	retainedLabel = "seed.example.com/retained"

	reasonRetained = "Retained"
	reasonAdopted  = "Adopted"
)

// release lets a DemoVolume being deleted go, once its claim and backups
// are kept if its policy is Retain; with Delete the garbage collector
// deletes them through their owner references.
func (r *Reconciler) release(ctx context.Context, dv *seedv1alpha1.DemoVolume) error {
	if !controllerutil.ContainsFinalizer(dv, claimFinalizer) {
		return nil
	}
	if dv.Spec.ReclaimPolicy == seedv1alpha1.ReclaimRetain {
		if err := r.keep(ctx, dv); err != nil {
			return err
		}
	}
	return kube.SetFinalizer(ctx, r.Client, r.Applier.APIReader, dv, claimFinalizer, false)
}

// keep keeps a deleted DemoVolume's claim and backups, and says so in an
// event. The backups go first: a claim restored from them is worth no more
// than they are.
func (r *Reconciler) keep(ctx context.Context, dv *seedv1alpha1.DemoVolume) error {
	backups, err := r.keepBackups(ctx, dv)
	if err != nil {
		return err
	}
	pvc, err := r.keepClaim(ctx, dv)
	if err != nil {
		return err
	}
	if message := keptMessage(pvc, backups); message != "" {
		var related client.Object
		if pvc != nil {
			related = pvc
		}
		r.Applier.Recorder.Eventf(dv, related, corev1.EventTypeNormal, reasonRetained, "Release", "%s", message)
	}
	return nil
}

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

// keepClaim drops the claim's owner reference, so that the garbage
// collector leaves it, and labels it as retained; it returns the claim
// kept, nil when there is none.
func (r *Reconciler) keepClaim(ctx context.Context, dv *seedv1alpha1.DemoVolume) (*corev1.PersistentVolumeClaim, error) {
	// The cache holds only claims labelled as managed by the operator,
	// and may not hold one created moments ago: taking its word that the
	// claim is gone would leave the claim owned, for the garbage collector
	// to delete with its data.
	pvc := &corev1.PersistentVolumeClaim{}
	err := r.Applier.APIReader.Get(ctx, client.ObjectKeyFromObject(dv), pvc)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("getting claim %s: %w", dv.Name, err)
	case !pvc.DeletionTimestamp.IsZero():
		return nil, nil
	case metav1.IsControlledBy(pvc, dv):
		if err := r.Apply(ctx, retainedClaim(dv, pvc), client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
			return nil, fmt.Errorf("releasing claim %s: %w", pvc.Name, err)
		}
		return pvc, nil
	case retainedFor(dv, kind)(pvc):
		// Kept by an earlier try, whose release of the finalizer failed.
		return pvc, nil
	}
	return nil, nil
}

// keepBackups releases the backups dv controls, as keepClaim releases its
// claim, and returns the names of those kept.
func (r *Reconciler) keepBackups(ctx context.Context, dv *seedv1alpha1.DemoVolume) ([]string, error) {
	if !r.Snapshots {
		return nil, nil
	}
	// From the API server: the cache may not hold a backup taken moments
	// ago, which would then go with the DemoVolume.
	list := &snapshotv1.VolumeSnapshotList{}
	if err := r.Applier.APIReader.List(ctx, list, client.InNamespace(dv.Namespace),
		client.MatchingLabels(kube.SelectorLabels(backupKind, dv.Name))); err != nil {
		return nil, fmt.Errorf("listing the backups: %w", err)
	}
	var kept []string
	for i := range list.Items {
		b := &list.Items[i]
		if !b.DeletionTimestamp.IsZero() {
			continue
		}
		if metav1.IsControlledBy(b, dv) {
			err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, b, func(obj client.Object) bool { return disown(dv, obj) })
			if err != nil {
				return nil, fmt.Errorf("releasing backup %s: %w", b.Name, err)
			}
		}
		if retainedFor(dv, backupKind)(b) {
			kept = append(kept, b.Name)
		}
	}
	slices.Sort(kept)
	return kept, nil
}

// adoptBackups takes back the backups that a deleted DemoVolume of dv's
// name kept, from a list of dv's backups as the cache has them, and
// returns those that are dv's.
func (r *Reconciler) adoptBackups(
	ctx context.Context, dv *seedv1alpha1.DemoVolume, list []snapshotv1.VolumeSnapshot,
) ([]snapshotv1.VolumeSnapshot, error) {
	var owned []snapshotv1.VolumeSnapshot
	var adopted []string
	for i := range list {
		b := &list[i]
		if retainedFor(dv, backupKind)(b) {
			// The last try tells: one that found the backup adopted by an
			// earlier reconcile, which the cache had not seen, adopted
			// nothing.
			var took bool
			err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, b, func(obj client.Object) bool {
				took = adopt(dv, backupKind, obj)
				return took
			})
			if err != nil {
				return nil, fmt.Errorf("adopting backup %s: %w", b.Name, err)
			}
			if took {
				adopted = append(adopted, b.Name)
			}
		}
		if metav1.IsControlledBy(b, dv) {
			owned = append(owned, *b)
		}
	}
	if len(adopted) > 0 {
		r.Applier.Recorder.Eventf(dv, nil, corev1.EventTypeNormal, reasonAdopted, "Adopt",
			"Took back backups %s, which a deleted DemoVolume of this name kept", strings.Join(adopted, ", "))
	}
	return owned, nil
}

// disown makes obj, an object of dv's, one that dv's deletion keeps: no
// longer owned by dv, and labelled as retained. It tells whether obj
// changed.
func disown(dv *seedv1alpha1.DemoVolume, obj client.Object) bool {
	if !metav1.IsControlledBy(obj, dv) {
		return false
	}
	obj.SetOwnerReferences(slices.DeleteFunc(obj.GetOwnerReferences(), func(ref metav1.OwnerReference) bool { return ref.UID == dv.UID }))
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[retainedLabel] = trueValue
	obj.SetLabels(labels)
	return true
}

// adopt makes obj dv's again, if it is one of kind that a deleted
// DemoVolume of dv's name retained. It tells whether obj changed.
func adopt(dv *seedv1alpha1.DemoVolume, kind string, obj client.Object) bool {
	if !retainedFor(dv, kind)(obj) {
		return false
	}
	labels := obj.GetLabels()
	obj.SetOwnerReferences(append(obj.GetOwnerReferences(), *metav1.NewControllerRef(dv, gvk)))
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

// retainedClaim is the claim of a deleted DemoVolume with Retain, live as
// read from the API server: no longer owned, so the garbage collector leaves
// it, and labelled as retained. It keeps the request the claim has: the
// spec's may be one the API server refuses (a claim not bound yet, or whose
// storage class cannot expand), and the DemoVolume could then never go. The
// resource version makes the apply fail rather than create a claim that
// someone deleted in the meantime.
func retainedClaim(dv *seedv1alpha1.DemoVolume, live *corev1.PersistentVolumeClaim) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	c := claim(dv, backupSource(live)).
		WithLabels(map[string]string{retainedLabel: trueValue}).
		WithResourceVersion(live.ResourceVersion)
	if request, ok := live.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		c.Spec.Resources.WithRequests(corev1.ResourceList{corev1.ResourceStorage: request})
	}
	return c
}
