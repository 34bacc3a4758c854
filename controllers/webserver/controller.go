// Package webserver reconciles WebServers: nginx pods in a Deployment, behind
// a Service.
package webserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reconciler keeps a WebServer's Deployment, Service and autoscaler as its
// spec says, and reports their state in its status.
type Reconciler struct {
	client.Client
	Applier *apply.Applier
}

// +kubebuilder:rbac:groups=seed.example.com,resources=webservers,verbs=list;watch
// +kubebuilder:rbac:groups=seed.example.com,resources=webservers/status,verbs=patch
// +kubebuilder:rbac:groups=seed.example.com,resources=webservers/finalizers,verbs=update
// delete on what it owns: OwnerReferencesPermissionEnforcement (OpenShift) lets
// only who may delete an object change its owner references, as putting back
// a removed one does.
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;patch
// +kubebuilder:rbac:groups=core,resources=services,verbs=list;watch;create;patch
// delete on autoscalers: one goes when spec.autoscaling does.
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=list;watch;create;patch;delete
// +kubebuilder:rbac:groups=core,resources=pods,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile applies the desired Deployment, Service and autoscaler, rolls a
// failed rollout back, then writes the status observed from the
// Deployment, its pods and the autoscaler; a new WebServer's first status
// waits a little for the Deployment to be ready (see untilFirstStatus).
// Owned objects are deleted by
// the garbage collector through their owner references, so deletion needs
// no finalizer.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ws := &seedv1alpha1.WebServer{}
	if err := r.Get(ctx, req.NamespacedName, ws); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ws.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	original := ws.DeepCopy()
	// The Deployment and Service it makes are one event, not two.
	ctx, recordEvents := r.Applier.GatherEvents(ctx, ws)
	defer recordEvents()

	deployment, autoscaler := &appsv1.Deployment{}, &autoscalingv2.HorizontalPodAutoscaler{}
	applyErr := r.applyOwned(ctx, ws, deployment, autoscaler)
	if apply.IsNamespaceTerminating(applyErr) {
		return ctrl.Result{}, apply.IgnoreRefused(applyErr)
	}
	pods, err := r.pods(ctx, ws.Namespace, ws.Name)
	if err != nil {
		return ctrl.Result{}, errors.Join(applyErr, err)
	}

	if rollback := failedRollout(ws, deployment, pods, time.Now()); rollback != nil && applyErr == nil {
		recorded, err := r.rollBack(ctx, ws, original, rollback)
		if err != nil || !recorded {
			return ctrl.Result{}, err
		}
		original = ws.DeepCopy()
		applyErr = r.Applier.Apply(ctx, ws, desiredDeployment(ws), deployment, apply.Exclusive(), apply.Deliberate())
	}

	computeStatus(ws, deployment, autoscaler, pods, applyErr)
	if wait := untilFirstStatus(original, ws, deployment, time.Now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return ctrl.Result{}, errors.Join(apply.IgnoreRefused(applyErr), kube.PatchStatus(ctx, r.Client, original, ws))
}

// applyOwned applies the desired Deployment and autoscaler, read back into
// deployment and autoscaler, and Service; without spec.autoscaling, it
// removes the autoscaler.
func (r *Reconciler) applyOwned(
	ctx context.Context, ws *seedv1alpha1.WebServer, deployment *appsv1.Deployment, autoscaler *autoscalingv2.HorizontalPodAutoscaler,
) error {
	var autoscalerErr error
	if ws.Spec.Autoscaling != nil {
		autoscalerErr = r.Applier.Apply(ctx, ws, desiredAutoscaler(ws), autoscaler, apply.Exclusive())
	} else {
		autoscalerErr = r.Applier.Remove(ctx, ws, client.ObjectKeyFromObject(ws), autoscaler)
	}
	return errors.Join(
		r.Applier.Apply(ctx, ws, desiredDeployment(ws), deployment, apply.Exclusive()),
		r.Applier.Apply(ctx, ws, desiredService(ws), &corev1.Service{}, apply.Exclusive()),
		autoscalerErr,
	)
}

// rollBack records the rollback in the WebServer's status before the
// Deployment goes back to the older image, so that a leader taking over
// in between finds it rather than rolling the failed image out again, and
// says so in a Warning event. It tells whether it recorded the rollback:
// under the optimistic lock, one decided from a WebServer the API server
// has moved past (a cache behind the operator's own record of this very
// rollback) is not, and the newer WebServer's event brings the next
// reconcile.
func (r *Reconciler) rollBack(ctx context.Context, ws, original *seedv1alpha1.WebServer, rollback *seedv1alpha1.WebServerRollback) (bool, error) {
	ws.Status.Rollback = rollback
	err := r.Status().Patch(ctx, ws, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
	if apierrors.IsConflict(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("recording the rollback of image %s: %w", rollback.Image, err)
	}
	r.Applier.Warn(ws, seedv1alpha1.ReasonRolledBack, "RollBack", "%s", rolledBackMessage(ws, rollback))
	return true, nil
}

// Owned are the kinds of the objects a WebServer has, for the manager's
// cache: the reconciler reads only their status, only WebServers' pods, and
// of those only why they cannot run.
var Owned = []cached.Owned{
	{Type: &appsv1.Deployment{}},
	{Type: &corev1.Service{}},
	{Type: &autoscalingv2.HorizontalPodAutoscaler{}},
	{Type: &corev1.Pod{}, Of: kind, TrimStatus: keepProblemStatus},
}

// SetupWithManager reconciles a WebServer whenever it changes, its
// Deployment, Service or autoscaler changes, so drift and deletion of any
// are put back at once, and when one of its pods starts or stops failing to
// run. Its own status writes bring a reconcile too, which writes nothing
// when the cache has caught up: one computed from a cache that had not yet
// seen the previous write finds nothing to change and skips the patch,
// leaving that write's status in place (kube.PatchStatus).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := indexPods(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	conflicts, err := r.Applier.ConflictSource(&seedv1alpha1.WebServer{})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&seedv1alpha1.WebServer{}, builder.WithPredicates(predicate.ResourceVersionChangedPredicate{})).
		Watches(&appsv1.Deployment{}, kube.EnqueueController(gvk.GroupKind())).
		Watches(&corev1.Service{}, kube.EnqueueController(gvk.GroupKind())).
		Watches(&autoscalingv2.HorizontalPodAutoscaler{}, kube.EnqueueController(gvk.GroupKind())).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(webServerOfPod), builder.WithPredicates(podProblemChanged)).
		WatchesRawSource(conflicts).
		WithOptions(kube.ControllerOptions()).
		Named("webserver").
		Complete(r)
}
