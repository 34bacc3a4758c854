// Package immortalcontainer reconciles ImmortalContainers: one pod that is
// started again whenever it ends or is deleted.
package immortalcontainer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Event reasons for what happens to the pod, beside the Applier's.
const (
	reasonPodEnded    = "PodEnded"
	reasonSpecChanged = "SpecChanged"
	reasonBackingOff  = "BackingOff"
)

// Reconciler keeps an ImmortalContainer's pod running.
type Reconciler struct {
	client.Client
	Applier *apply.Applier
	// Now is the clock, replaceable in tests.
	Now func() time.Time
}

// +kubebuilder:rbac:groups=seed.example.com,resources=immortalcontainers,verbs=list;watch
// +kubebuilder:rbac:groups=seed.example.com,resources=immortalcontainers/status,verbs=patch
// +kubebuilder:rbac:groups=seed.example.com,resources=immortalcontainers/finalizers,verbs=update
// +kubebuilder:rbac:groups=core,resources=pods,verbs=list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile takes one step towards a running pod of the current spec: it
// waits for a terminating pod to go, deletes a pod that ended, runs an old
// spec or was changed by others, or starts a new pod once the back-off
// allows. The pod's own
// events (it ends, it is deleted) bring the next step.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ic := &seedv1alpha1.ImmortalContainer{}
	if err := r.Get(ctx, req.NamespacedName, ic); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ic.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	original := ic.DeepCopy()

	pod, err := r.currentPod(ctx, ic)
	if err != nil {
		return ctrl.Result{}, err
	}
	desired := desiredPod(ic)
	var result ctrl.Result
	var replacing bool
	switch {
	case pod == nil:
		pod, result, err = r.start(ctx, ic, desired)
	case !pod.DeletionTimestamp.IsZero():
		// Its replacement takes its name, so it must be gone first; the
		// deletion event brings the next reconcile.
		replacing, err = r.replacing(ctx, ic)
	case ended(pod):
		err = r.replace(ctx, ic, pod, reasonPodEnded, fmt.Sprintf("Pod %s ended (%s); starting a new one", pod.Name, pod.Status.Phase))
	case pod.Annotations[specHashAnnotation] != desired.Annotations[specHashAnnotation]:
		err = r.replace(ctx, ic, pod, reasonSpecChanged, fmt.Sprintf("Replacing pod %s to run the new spec", pod.Name))
	default:
		err = r.keep(ctx, ic, pod, desired)
	}

	if apply.IsNamespaceTerminating(err) {
		return ctrl.Result{}, apply.IgnoreRefused(err)
	}
	computeStatus(ic, pod, r.Now(), replacing, err)
	return result, errors.Join(apply.IgnoreRefused(err), kube.PatchStatus(ctx, r.Client, original, ic))
}

// currentPod is the ImmortalContainer's pod, or nil when there is none. A
// pod of its name that it does not control is not its pod, even with the
// operator's labels (the cache holds every such pod): starting one then
// finds the name taken (Apply).
func (r *Reconciler) currentPod(ctx context.Context, ic *seedv1alpha1.ImmortalContainer) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	err := r.Get(ctx, types.NamespacedName{Namespace: ic.Namespace, Name: podName(ic)}, pod)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting pod %s: %w", podName(ic), err)
	}
	if !metav1.IsControlledBy(pod, ic) {
		return nil, nil
	}
	return pod, nil
}

// start creates a new pod, unless pods have been ending so soon after they
// started that the back-off asks to wait; then it comes back when the wait
// is over. A pod started in place of one the ImmortalContainer replaced is
// its own decision; only one in place of a pod someone else deleted puts
// back what they did (a repair).
func (r *Reconciler) start(
	ctx context.Context, ic *seedv1alpha1.ImmortalContainer, desired *corev1ac.PodApplyConfiguration,
) (*corev1.Pod, ctrl.Result, error) {
	next := nextStart(ic.Status.StartTimes)
	if wait := next.Sub(r.Now()); wait > 0 {
		r.Applier.Recorder.Eventf(ic, nil, corev1.EventTypeWarning, reasonBackingOff, "Start",
			"Pods keep ending soon after they start; the next one starts at %s", next.UTC().Format(time.RFC3339))
		return nil, ctrl.Result{RequeueAfter: wait}, nil
	}
	var opts []apply.ApplyOption
	deliberate, err := r.replacing(ctx, ic)
	if err != nil {
		return nil, ctrl.Result{}, err
	}
	if deliberate {
		opts = append(opts, apply.Deliberate())
	}
	pod := &corev1.Pod{}
	if err := r.Applier.Apply(ctx, ic, desired, pod, opts...); err != nil {
		return nil, ctrl.Result{}, err
	}
	recordStart(ic, pod)
	return pod, ctrl.Result{}, nil
}

// replacing tells whether the ImmortalContainer is replacing its pod (it
// ended, or ran an earlier spec) or waiting to start the next, as its
// status says. The reconcile that deleted the pod wrote so just before,
// and the cache may not hold that yet: when its copy does not say so, and
// the spec is in place (a new pod would be a repair), the API server's
// copy tells.
func (r *Reconciler) replacing(ctx context.Context, ic *seedv1alpha1.ImmortalContainer) (bool, error) {
	if replacing(ic) {
		return true, nil
	}
	if !kube.SpecApplied(ic) {
		return false, nil
	}
	// By a list of its name: the operator may list ImmortalContainers, as
	// its cache does, and needs no more.
	live := &seedv1alpha1.ImmortalContainerList{}
	if err := r.Applier.APIReader.List(ctx, live, client.InNamespace(ic.Namespace), client.MatchingFields{"metadata.name": ic.Name}); err != nil {
		return false, fmt.Errorf("reading ImmortalContainer %s: %w", ic.Name, err)
	}
	return len(live.Items) == 1 && replacing(&live.Items[0]), nil
}

// replace deletes the pod so that a new one can take its name. The UID
// precondition makes sure only that pod is deleted, never a newer one.
func (r *Reconciler) replace(ctx context.Context, ic *seedv1alpha1.ImmortalContainer, pod *corev1.Pod, reason, note string) error {
	recordStart(ic, pod)
	err := r.Delete(ctx, pod, client.Preconditions{UID: &pod.UID})
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting pod %s: %w", pod.Name, err)
	}
	eventType := corev1.EventTypeNormal
	if pod.Status.Phase == corev1.PodFailed {
		eventType = corev1.EventTypeWarning
	}
	r.Applier.Recorder.Eventf(ic, pod, eventType, reason, "Delete", note)
	return nil
}

// keep counts a pod that runs the current spec, unless others changed its
// spec: most of a pod's spec cannot change back (a toleration, once added,
// stays), so such a pod is replaced by one of the spec. What can change
// back, its labels and owner reference, the apply puts back (it sends
// nothing when nothing changed).
func (r *Reconciler) keep(ctx context.Context, ic *seedv1alpha1.ImmortalContainer, pod *corev1.Pod, desired *corev1ac.PodApplyConfiguration) error {
	changedBy, err := apply.ForeignSpecManagers(pod)
	if err != nil {
		return fmt.Errorf("reading who changed pod %s: %w", pod.Name, err)
	}
	if len(changedBy) > 0 {
		return r.replace(ctx, ic, pod, apply.ReasonRepaired,
			fmt.Sprintf("Replacing pod %s, whose spec %s changed", pod.Name, strings.Join(changedBy, ", ")))
	}
	if err := r.Applier.Apply(ctx, ic, desired, pod); err != nil {
		return err
	}
	recordStart(ic, pod)
	return nil
}

// ended tells whether a pod's container has exited for good: the pod
// never restarts it in place.
func ended(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// recordStart counts a pod the first time the operator sees it. Counting
// what is observed, rather than what was created, keeps the count right when
// writing the status fails after a pod was started: the next reconcile sees
// the pod and counts it then.
func recordStart(ic *seedv1alpha1.ImmortalContainer, pod *corev1.Pod) {
	if string(pod.UID) == ic.Status.PodUID {
		return
	}
	ic.Status.PodUID = string(pod.UID)
	ic.Status.PodsStarted++
	ic.Status.StartTimes = append(ic.Status.StartTimes, pod.CreationTimestamp)
	if extra := len(ic.Status.StartTimes) - seedv1alpha1.MaxStartTimes; extra > 0 {
		ic.Status.StartTimes = ic.Status.StartTimes[extra:]
	}
}

// Owned are the kinds of the objects an ImmortalContainer has, for the
// manager's cache: the reconciler reads its pod's status, and who changed
// its spec from the managed fields (apply.ForeignSpecManagers), never the
// spec itself.
var Owned = []cached.Owned{{Type: &corev1.Pod{}, AppliedFieldsRead: true, Of: kind}}

// SetupWithManager reconciles an ImmortalContainer whenever it or its pod
// changes, so a pod that ends or is deleted is replaced at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Now == nil {
		r.Now = time.Now
	}
	conflicts, err := r.Applier.ConflictSource(&seedv1alpha1.ImmortalContainer{})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&seedv1alpha1.ImmortalContainer{}).
		Watches(&corev1.Pod{}, kube.EnqueueController(gvk.GroupKind())).
		WatchesRawSource(conflicts).
		WithOptions(kube.ControllerOptions()).
		Named("immortalcontainer").
		Complete(r)
}
