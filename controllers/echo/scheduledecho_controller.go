package echo

import (
	"context"
	"errors"

	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// ScheduledEchoReconciler keeps a ScheduledEcho's CronJob as its spec says
// and reports the runs.
type ScheduledEchoReconciler struct {
	client.Client
	Applier *apply.Applier
}

// +kubebuilder:rbac:groups=seed.example.com,resources=scheduledechoes,verbs=list;watch
// +kubebuilder:rbac:groups=seed.example.com,resources=scheduledechoes/status,verbs=patch
// +kubebuilder:rbac:groups=seed.example.com,resources=scheduledechoes/finalizers,verbs=update
// delete on what it owns: OwnerReferencesPermissionEnforcement (OpenShift) lets
// only who may delete an object change its owner references, as putting back
// a removed one does.
// +kubebuilder:rbac:groups=batch,resources=cronjobs,verbs=list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile applies the desired CronJob, then writes the status observed
// from it. The CronJob, and through it its Jobs, are deleted by the garbage
// collector with the ScheduledEcho.
func (r *ScheduledEchoReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &seedv1alpha1.ScheduledEcho{}
	if err := r.Get(ctx, req.NamespacedName, s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !s.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	original := s.DeepCopy()

	cronJob := &batchv1.CronJob{}
	applyErr := r.Applier.Apply(ctx, s, desiredCronJob(s), cronJob, apply.Exclusive())
	if apply.IsNamespaceTerminating(applyErr) {
		return ctrl.Result{}, apply.IgnoreRefused(applyErr)
	}
	computeScheduledStatus(s, cronJob, applyErr)
	return ctrl.Result{}, errors.Join(apply.IgnoreRefused(applyErr), kube.PatchStatus(ctx, r.Client, original, s))
}

// SetupWithManager reconciles a ScheduledEcho whenever it or its CronJob
// changes; the CronJob's status follows its Jobs.
func (r *ScheduledEchoReconciler) SetupWithManager(mgr ctrl.Manager) error {
	conflicts, err := r.Applier.ConflictSource(&seedv1alpha1.ScheduledEcho{})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&seedv1alpha1.ScheduledEcho{}).
		Watches(&batchv1.CronJob{}, kube.EnqueueController(scheduledGVK.GroupKind())).
		WatchesRawSource(conflicts).
		WithOptions(kube.ControllerOptions()).
		Named("scheduledecho").
		Complete(r)
}
