// Package demovolume reconciles DemoVolumes: a PersistentVolumeClaim of the
// requested size, kept or deleted with the DemoVolume as its reclaim policy
// says.
package demovolume

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// claimFinalizer is the finalizer releases up to 0.3.1 gave every
// DemoVolume, to act on its reclaim policy when it was deleted. The
// operator removes it, once the namespace holds the claim and backups
// (release.go says why).
const claimFinalizer = "seed.example.com/retain-claim"

// Reconciler keeps a DemoVolume's claim at the size its spec asks for,
// made from a backup when the spec says so, and takes and prunes its
// backups.
type Reconciler struct {
	client.Client
	Applier *apply.Applier
	// Snapshots tells whether the API server serves VolumeSnapshots, as it
	// did when the operator started: without them there are no backups.
	Snapshots bool
	// Usage reads how full volumes are, for autoGrow, every UsagePoll
	// (15 s when zero).
	Usage     UsageReader
	UsagePoll time.Duration

	deletions *deletions
}

// +kubebuilder:rbac:groups=seed.example.com,resources=demovolumes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=seed.example.com,resources=demovolumes/status,verbs=patch
// +kubebuilder:rbac:groups=seed.example.com,resources=demovolumes/finalizers,verbs=update
// delete on what it owns: OwnerReferencesPermissionEnforcement (OpenShift) lets
// only who may delete an object change its owner references, as putting back
// a removed one does.
// +kubebuilder:rbac:groups=core,resources=persistentvolumeclaims,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=snapshot.storage.k8s.io,resources=volumesnapshots,verbs=get;list;watch;create;patch;delete
// Objects of no namespace, in a ClusterRole of their own: OLM grants the
// manager's role in the watched namespaces only, unless it watches all.
// +kubebuilder:rbac:groups=snapshot.storage.k8s.io,resources=volumesnapshotclasses,verbs=get;list,roleName=manager-cluster-role
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get,roleName=manager-cluster-role
// +kubebuilder:rbac:groups=core,resources=persistentvolumes,verbs=get,roleName=manager-cluster-role
// +kubebuilder:rbac:groups=core,resources=nodes,verbs=list,roleName=manager-cluster-role
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=list;watch,roleName=manager-cluster-role
// +kubebuilder:rbac:groups=core,resources=nodes/stats,verbs=get,roleName=manager-cluster-role

// Reconcile applies the desired claim, made from a backup when it is made
// again after a loss or the spec restores one, takes the backups that are
// due, and writes the status observed from the claim and the backups. When
// a DemoVolume is gone, it acts on the reclaim policy it had on what it
// left.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	dv := &seedv1alpha1.DemoVolume{}
	switch err := r.Get(ctx, req.NamespacedName, dv); {
	case apierrors.IsNotFound(err):
		return ctrl.Result{}, r.settle(ctx, req.NamespacedName, "")
	case err != nil:
		return ctrl.Result{}, err
	}
	if err := r.dropFinalizer(ctx, dv); err != nil || !dv.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, err
	}
	listed, err := r.listBackups(ctx, dv)
	if err != nil {
		return ctrl.Result{}, err
	}
	// One made again under the name of one just deleted, before the
	// operator acted on what that one left.
	if left, err := r.leftInCache(ctx, dv, listed); err != nil || left {
		return ctrl.Result{}, errors.Join(err, r.settle(ctx, req.NamespacedName, dv.UID))
	}
	holder, err := r.holder(ctx, dv.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}
	original := dv.DeepCopy()

	list, err := r.adoptBackups(ctx, dv, holder, listed)
	if err != nil {
		return ctrl.Result{}, err
	}
	b := &backups{list: list, holder: holder}
	pvc := &corev1.PersistentVolumeClaim{}
	claimErr := r.applyClaim(ctx, dv, pvc, b)
	if apply.IsNamespaceTerminating(claimErr) {
		return ctrl.Result{}, apply.IgnoreRefused(claimErr)
	}
	backupErr := r.backUp(ctx, dv, pvc, b)
	growErr := r.autoGrow(ctx, dv, pvc)

	computeStatus(dv, pvc, claimErr)
	computeBackupStatus(dv, b)
	result := ctrl.Result{}
	if !b.next.IsZero() {
		result.RequeueAfter = time.Until(b.next)
	}
	if poll := cmp.Or(r.UsagePoll, defaultUsagePoll); dv.Spec.AutoGrow != nil && (result.RequeueAfter == 0 || result.RequeueAfter > poll) {
		result.RequeueAfter = poll
	}
	var waiting *refusal
	if errors.As(claimErr, &waiting) {
		// A backup to restore may yet be taken or become ready: it is
		// another DemoVolume's, whose changes do not bring this one back.
		// The status says why the claim waits: no error.
		result.RequeueAfter, claimErr = restoreRetry, nil
	}
	// A backup refused in a namespace being deleted is not retried: the
	// namespace takes the DemoVolume with it.
	err = errors.Join(apply.IgnoreRefused(claimErr), apply.IgnoreNamespaceTerminating(backupErr), growErr,
		kube.PatchStatus(ctx, r.Client, original, dv))
	if err != nil {
		// The workqueue's back-off, not result, brings the next attempt.
		return ctrl.Result{}, err
	}
	return result, nil
}

// restoreRetry is how often a DemoVolume waiting for a backup to restore
// looks at it again.
const restoreRetry = 5 * time.Second

// applyClaim applies the desired claim. One that is to be made from a
// backup that cannot be restored is not made, and the refusal says why; a
// lost claim (its volume gone) is deleted to be made again, with
// restoreOnLoss.
func (r *Reconciler) applyClaim(ctx context.Context, dv *seedv1alpha1.DemoVolume, pvc *corev1.PersistentVolumeClaim, b *backups) error {
	live := &corev1.PersistentVolumeClaim{}
	err := r.Get(ctx, client.ObjectKeyFromObject(dv), live)
	switch {
	case err == nil:
		// Taken back by a patch of its metadata, as it was kept: the apply
		// would not remove a label it did not set.
		if retainedFor(dv, kind)(live) {
			if err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, live, func(obj client.Object) bool {
				return adopt(dv, kind, b.holder, obj)
			}); err != nil {
				return fmt.Errorf("adopting claim %s: %w", live.Name, err)
			}
		}
		switch {
		case metav1.IsControlledBy(live, dv) && !live.DeletionTimestamp.IsZero():
			// The claim made in its place must wait until it is gone (its
			// deletion brings the next reconcile): an apply now would
			// make the new claim, if it went meanwhile, from this copy,
			// and so without the backup restoreOnLoss restores.
			live.DeepCopyInto(pvc)
			return nil
		case metav1.IsControlledBy(live, dv) && live.Status.Phase == corev1.ClaimLost && dv.Spec.Backup != nil && dv.Spec.Backup.RestoreOnLoss:
			live.DeepCopyInto(pvc)
			return r.Applier.Remove(ctx, dv, client.ObjectKeyFromObject(live), &corev1.PersistentVolumeClaim{})
		}
		opts := []apply.ApplyOption{apply.AdoptIf(retainedFor(dv, kind))}
		if growing(dv, live) {
			opts = append(opts, apply.Deliberate())
		}
		return r.Applier.Apply(ctx, dv, liveClaimSpec(dv, b.holder, live), pvc, opts...)
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("getting claim %s: %w", dv.Name, err)
	}
	source, reason, err := r.claimSource(ctx, dv, b.list)
	if err != nil {
		return err
	}
	opts := []apply.ApplyOption{apply.AdoptIf(retainedFor(dv, kind))}
	if !hadClaim(dv) || dv.Status.Phase == corev1.ClaimLost {
		// Its first claim, such as one that waited for its backup, is no
		// repair, and neither is one in place of a lost claim, which the
		// operator deleted itself.
		opts = append(opts, apply.Deliberate())
	}
	if err := r.Applier.Apply(ctx, dv, desiredClaim(dv, b.holder, source), pvc, opts...); err != nil {
		return err
	}
	if source != "" {
		r.Applier.Recorder.Eventf(dv, pvc, corev1.EventTypeNormal, reason, "Restore", "Made claim %s from backup %s", pvc.Name, source)
	}
	return nil
}

// hadClaim tells whether the status records a claim: one missing now was
// deleted or lost, not yet made.
func hadClaim(dv *seedv1alpha1.DemoVolume) bool {
	return dv.Status.ClaimName != ""
}

// Owned are the kinds of the objects a DemoVolume has, for the manager's
// cache: the status names the volume its claim is bound to, from the
// claim's spec.
var Owned = []cached.Owned{{Type: &corev1.PersistentVolumeClaim{}, SpecRead: true}}

// OwnedSnapshots is Owned's entry for the backups, when the API server
// serves VolumeSnapshots: their spec is never read.
var OwnedSnapshots = cached.Owned{Type: &snapshotv1.VolumeSnapshot{}}

// SetupWithManager reconciles a DemoVolume whenever it or its claim
// changes, and once it is deleted. Its own status writes bring a reconcile
// too, which writes nothing when the cache has caught up: one computed
// from a cache that had not yet seen the previous write finds nothing to
// change and skips the patch, leaving that write's status in place
// (kube.PatchStatus).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	conflicts, err := r.Applier.ConflictSource(&seedv1alpha1.DemoVolume{})
	if err != nil {
		return err
	}
	r.deletions = &deletions{}
	informer, err := mgr.GetCache().GetInformer(context.Background(), &seedv1alpha1.DemoVolume{})
	if err != nil {
		return fmt.Errorf("getting the DemoVolumes' informer: %w", err)
	}
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: r.deletions.observe}); err != nil {
		return fmt.Errorf("watching DemoVolumes' deletions: %w", err)
	}
	owned := handler.EnqueueRequestsFromMapFunc(ownerOf)
	b := ctrl.NewControllerManagedBy(mgr).
		// Deletions are enqueued by enqueueDeleted, with the state they
		// end in.
		For(&seedv1alpha1.DemoVolume{}, builder.WithPredicates(predicate.ResourceVersionChangedPredicate{}, noDeletions)).
		Watches(&seedv1alpha1.DemoVolume{}, enqueueDeleted{&handler.EnqueueRequestForObject{}, r.deletions}, builder.WithPredicates(onlyDeletions)).
		Watches(&corev1.PersistentVolumeClaim{}, owned)
	if r.Snapshots {
		b = b.Watches(&snapshotv1.VolumeSnapshot{}, owned)
	}
	return b.WatchesRawSource(conflicts).
		WithOptions(kube.ControllerOptions()).
		Named("demovolume").
		Complete(r)
}

var (
	noDeletions   = predicate.Funcs{DeleteFunc: func(event.DeleteEvent) bool { return false }}
	onlyDeletions = predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
	controllerOf = kube.ControllerOf(gvk.GroupKind())
)

// ownerOf maps a claim or a backup to the DemoVolume that controls it, or
// that left it without the operator acting on it yet: one deleted while
// the operator was away, whose reference the garbage collector dropped.
func ownerOf(ctx context.Context, obj client.Object) []reconcile.Request {
	if requests := controllerOf(ctx, obj); len(requests) > 0 {
		return requests
	}
	labels := obj.GetLabels()
	name, of := labels[kube.LabelInstance], labels[kube.LabelName]
	if (of != kind && of != backup.Kind) || !leftBy(name, of, "")(obj) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
}
