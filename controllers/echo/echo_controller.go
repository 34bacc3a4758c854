// Package echo reconciles Echoes, which print a message once with a Job,
// and ScheduledEchoes, which print one on a schedule with a CronJob.
package echo

import (
	"context"
	"errors"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// EchoReconciler runs an Echo's Job and reports how it went.
type EchoReconciler struct {
	client.Client
	Applier *apply.Applier
}

// +kubebuilder:rbac:groups=seed.example.com,resources=echoes,verbs=list;watch
// +kubebuilder:rbac:groups=seed.example.com,resources=echoes/status,verbs=patch
// +kubebuilder:rbac:groups=seed.example.com,resources=echoes/finalizers,verbs=update
// delete on what it owns: OwnerReferencesPermissionEnforcement (OpenShift) lets
// only who may delete an object change its owner references, as putting back
// a removed one does.
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile applies the Echo's Job until it has finished, then keeps the
// result: a finished Job that is gone (its TTL ran out, or someone deleted
// it) is not run again, because an Echo prints once. The Job gets its TTL
// once its result is recorded (desiredJob), so that the TTL cannot delete
// it unseen; nothing else holds it, so its namespace never waits for the
// operator.
func (r *EchoReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	e := &seedv1alpha1.Echo{}
	if err := r.Get(ctx, req.NamespacedName, e); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, r.releaseJob(ctx, req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	if !e.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.releaseJob(ctx, req.NamespacedName)
	}
	original := e.DeepCopy()

	job, applyErr := r.job(ctx, e)
	if apply.IsNamespaceTerminating(applyErr) {
		return ctrl.Result{}, apply.IgnoreRefused(applyErr)
	}
	computeEchoStatus(e, job, applyErr)
	if err := kube.PatchStatus(ctx, r.Client, original, e); err != nil {
		return ctrl.Result{}, errors.Join(apply.IgnoreRefused(applyErr), err)
	}
	// The result the Job holds is recorded now: a Job being deleted that
	// an earlier release held may go. If it had not finished, it runs again
	// once it is gone.
	if !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, errors.Join(apply.IgnoreRefused(applyErr), r.release(ctx, job))
	}
	return ctrl.Result{}, apply.IgnoreRefused(applyErr)
}

// job is the Echo's Job, applied unless it is being deleted, whose status
// is then all there is to read, or it is gone after the Echo finished. An
// empty Job stands for one that is gone.
func (r *EchoReconciler) job(ctx context.Context, e *seedv1alpha1.Echo) (*batchv1.Job, error) {
	job := &batchv1.Job{}
	err := r.Get(ctx, client.ObjectKeyFromObject(e), job)
	switch {
	case err == nil && !job.DeletionTimestamp.IsZero() && metav1.IsControlledBy(job, e):
		return job, nil
	case apierrors.IsNotFound(err) && finished(e):
		return &batchv1.Job{}, nil
	case client.IgnoreNotFound(err) != nil:
		return &batchv1.Job{}, fmt.Errorf("getting Job %s: %w", e.Name, err)
	}
	job = &batchv1.Job{}
	return job, r.Applier.Apply(ctx, e, desiredJob(e), job)
}

// releaseJob lets the Job of an Echo that is gone, or going, go too, if an
// earlier release held it: there is no status left to record its result in.
func (r *EchoReconciler) releaseJob(ctx context.Context, key client.ObjectKey) error {
	job := &batchv1.Job{}
	if err := r.Get(ctx, key, job); err != nil {
		return client.IgnoreNotFound(err)
	}
	return r.release(ctx, job)
}

// release removes the finalizer an earlier release held job by, if any.
func (r *EchoReconciler) release(ctx context.Context, job *batchv1.Job) error {
	return kube.SetFinalizer(ctx, r.Client, r.Applier.APIReader, job, legacyResultFinalizer, false)
}

// Owned are the kinds of the objects Echoes and ScheduledEchoes have, for
// the manager's cache. An Echo reads only its Job's status; a ScheduledEcho
// reports its CronJob's schedule, and whether it is suspended.
var Owned = []cached.Owned{{Type: &batchv1.Job{}}, {Type: &batchv1.CronJob{}, SpecRead: true}}

// SetupWithManager reconciles an Echo whenever it or its Job changes.
func (r *EchoReconciler) SetupWithManager(mgr ctrl.Manager) error {
	conflicts, err := r.Applier.ConflictSource(&seedv1alpha1.Echo{})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&seedv1alpha1.Echo{}).
		Watches(&batchv1.Job{}, kube.EnqueueController(echoGVK.GroupKind())).
		WatchesRawSource(conflicts).
		WithOptions(kube.ControllerOptions()).
		Named("echo").
		Complete(r)
}
