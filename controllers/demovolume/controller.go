// Package demovolume reconciles DemoVolumes: a PersistentVolumeClaim of the
// requested size, kept or deleted with the DemoVolume as its reclaim policy
// says.
package demovolume

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// claimFinalizer holds every DemoVolume, whatever its policy, until the
	// operator has acted on the reclaim policy the spec has when it is
	// deleted: a finalizer added only for Retain would lose the data of a
	// DemoVolume switched to Retain and deleted before the operator saw the
	// switch. The name is the one Retain-only releases gave it.
	claimFinalizer = "seed.example.com/retain-claim"

	reasonRetained = "Retained"
)

// Reconciler keeps a DemoVolume's claim at the size its spec asks for.
type Reconciler struct {
	client.Client
	Applier *apply.Applier
}

// +kubebuilder:rbac:groups=seed.example.com,resources=demovolumes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=seed.example.com,resources=demovolumes/status,verbs=patch
// +kubebuilder:rbac:groups=seed.example.com,resources=demovolumes/finalizers,verbs=update
// delete on what it owns: OwnerReferencesPermissionEnforcement (OpenShift) lets
// only who may delete an object change its owner references, as putting back
// a removed one does.
// +kubebuilder:rbac:groups=core,resources=persistentvolumeclaims,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile applies the desired claim and writes the status observed from
// it. A DemoVolume carries a finalizer, and on deletion with the Retain
// policy its claim is released rather than deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	dv := &seedv1alpha1.DemoVolume{}
	if err := r.Get(ctx, req.NamespacedName, dv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !dv.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.release(ctx, dv)
	}
	if err := kube.SetFinalizer(ctx, r.Client, r.Applier.APIReader, dv, claimFinalizer, true); err != nil {
		return ctrl.Result{}, err
	}
	original := dv.DeepCopy()

	pvc := &corev1.PersistentVolumeClaim{}
	applyErr := r.Applier.Apply(ctx, dv, desiredClaim(dv), pvc, apply.AdoptIf(retainedFor(dv)))

	computeStatus(dv, pvc, applyErr)
	return ctrl.Result{}, errors.Join(apply.IgnoreRefused(applyErr), kube.PatchStatus(ctx, r.Client, original, dv))
}

// release lets a DemoVolume being deleted go, once its claim is kept if
// its policy is Retain; with Delete the garbage collector deletes the claim
// through its owner reference.
func (r *Reconciler) release(ctx context.Context, dv *seedv1alpha1.DemoVolume) error {
	if !controllerutil.ContainsFinalizer(dv, claimFinalizer) {
		return nil
	}
	if dv.Spec.ReclaimPolicy == seedv1alpha1.ReclaimRetain {
		if err := r.keepClaim(ctx, dv); err != nil {
			return err
		}
	}
	return kube.SetFinalizer(ctx, r.Client, r.Applier.APIReader, dv, claimFinalizer, false)
}

// keepClaim drops the claim's owner reference, so that the garbage
// collector leaves it, and labels it as retained.
func (r *Reconciler) keepClaim(ctx context.Context, dv *seedv1alpha1.DemoVolume) error {
	// The cache holds only claims labelled as managed by the operator, and
	// may not hold one created moments ago: taking its word that the claim
	// is gone would leave the claim owned, for the garbage collector to
	// delete with its data.
	pvc := &corev1.PersistentVolumeClaim{}
	err := r.Applier.APIReader.Get(ctx, client.ObjectKeyFromObject(dv), pvc)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("getting claim %s: %w", dv.Name, err)
	case pvc.DeletionTimestamp.IsZero() && metav1.IsControlledBy(pvc, dv):
		if err := r.Apply(ctx, retainedClaim(dv, pvc), client.FieldOwner(kube.FieldManager), client.ForceOwnership); err != nil {
			return fmt.Errorf("releasing claim %s: %w", pvc.Name, err)
		}
		r.Applier.Recorder.Eventf(dv, pvc, corev1.EventTypeNormal, reasonRetained, "Release",
			"Kept PersistentVolumeClaim %s and its data, labelled %s=true", pvc.Name, retainedLabel)
	}
	return nil
}

// Owned are the kinds of the objects a DemoVolume has, for the manager's
// cache: the status names the volume its claim is bound to, from the
// claim's spec.
var Owned = []cached.Owned{{Type: &corev1.PersistentVolumeClaim{}, SpecRead: true}}

// SetupWithManager reconciles a DemoVolume whenever it or its claim
// changes. Its own status writes bring a reconcile too, which writes
// nothing when the cache has caught up: one computed from a cache that had
// not yet seen the previous write finds nothing to change and skips the
// patch, leaving that write's status in place (kube.PatchStatus).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	conflicts, err := r.Applier.ConflictSource(&seedv1alpha1.DemoVolume{})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&seedv1alpha1.DemoVolume{}, builder.WithPredicates(predicate.ResourceVersionChangedPredicate{})).
		Owns(&corev1.PersistentVolumeClaim{}).
		WatchesRawSource(conflicts).
		WithOptions(kube.ControllerOptions()).
		Named("demovolume").
		Complete(r)
}
