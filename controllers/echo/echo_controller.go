// Package echo reconciles Echoes, which print a message once with a Job,
// and ScheduledEchoes, which print one on a schedule with a CronJob.
package echo

import (
	"context"
	"errors"

	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// EchoReconciler runs an Echo's Job and reports how it went.
type EchoReconciler struct {
	client.Client
	Applier *kube.Applier
}

// +kubebuilder:rbac:groups=seed.example.com,resources=echoes,verbs=get;list;watch
// +kubebuilder:rbac:groups=seed.example.com,resources=echoes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=seed.example.com,resources=echoes/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile applies the Echo's Job until it has finished, then keeps the
// result: a finished Job that is gone (its TTL ran out, or someone deleted
// it) is not run again, because an Echo prints once.
func (r *EchoReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	e := &seedv1alpha1.Echo{}
	if err := r.Get(ctx, req.NamespacedName, e); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !e.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	original := e.DeepCopy()

	job := &batchv1.Job{}
	if finished(e) {
		if err := r.Get(ctx, client.ObjectKeyFromObject(e), job); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	applyErr := r.Applier.Apply(ctx, e, desiredJob(e), job)

	computeEchoStatus(e, job, applyErr)
	return ctrl.Result{}, errors.Join(applyErr, kube.PatchStatus(ctx, r.Client, original, e))
}

// SetupWithManager reconciles an Echo whenever it or its Job changes.
func (r *EchoReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&seedv1alpha1.Echo{}).
		Owns(&batchv1.Job{}).
		Named("echo").
		Complete(r)
}
