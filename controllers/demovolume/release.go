package demovolume

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/backup"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// A DemoVolume carries no finalizer: one would hold its namespace's
// deletion for as long as the operator is away, and for ever after an
// uninstall. Its namespace holds its claim and backups beside it (an owner
// reference of each), so that the garbage collector, which deletes an
// object only once all its owners are gone, never deletes them with it.
// The operator acts on the reclaim policy the DemoVolume had when it was
// deleted, read from the watch's last state of it: with Delete, it deletes
// them itself; with Retain, or when it did not see the deletion (it was
// away), it keeps them. Data is never deleted on a guess.

const reasonDeleted = "Deleted"

// deletions holds the last state of each deleted DemoVolume, as its watch
// delivered it, until the operator has acted on its reclaim policy: the
// policy it had when deleted, a switch just before included. Every
// replica records them, leading or not, so that one that takes the lead
// knows of the deletions its predecessor had not acted on; each is
// forgotten after deletionMemory.
type deletions struct {
	mu    sync.Mutex
	last  map[types.NamespacedName]deletion
	swept time.Time
}

type deletion struct {
	dv *seedv1alpha1.DemoVolume
	at time.Time
}

// deletionMemory is how long a replica remembers a deletion: the leader
// acts on one within a reconcile, one that takes the lead within its
// lease.
const deletionMemory = 10 * time.Minute

// remember records what the operator acts on of a deleted DemoVolume:
// which it was, and its reclaim policy.
func (d *deletions) remember(dv *seedv1alpha1.DemoVolume) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	if d.last == nil {
		d.last = map[types.NamespacedName]deletion{}
	}
	if now.Sub(d.swept) > time.Minute {
		maps.DeleteFunc(d.last, func(_ types.NamespacedName, old deletion) bool { return now.Sub(old.at) > deletionMemory })
		d.swept = now
	}
	last := &seedv1alpha1.DemoVolume{
		ObjectMeta: metav1.ObjectMeta{Name: dv.Name, Namespace: dv.Namespace, UID: dv.UID, CreationTimestamp: dv.CreationTimestamp},
		Spec:       seedv1alpha1.DemoVolumeSpec{ReclaimPolicy: dv.Spec.ReclaimPolicy},
	}
	d.last[client.ObjectKeyFromObject(dv)] = deletion{dv: last, at: now}
}

// lastOf is the last state of the deleted DemoVolume key names, nil when
// the operator did not see it deleted.
func (d *deletions) lastOf(key types.NamespacedName) *seedv1alpha1.DemoVolume {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last[key].dv
}

// forget drops the last state of a deleted DemoVolume, once acted on, if
// it is still the one of uid.
func (d *deletions) forget(key types.NamespacedName, uid types.UID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if last, ok := d.last[key]; ok && last.dv.UID == uid {
		delete(d.last, key)
	}
}

// observe records a deletion the informer delivers, unless its last state
// is unknown (the watch missed it): a cache.ResourceEventHandler's
// DeleteFunc, which runs in every replica.
func (d *deletions) observe(obj any) {
	if dv, ok := obj.(*seedv1alpha1.DemoVolume); ok {
		d.remember(dv)
	}
}

// enqueueDeleted is the controller's handler of DemoVolumes' deletions:
// it remembers the last state before it enqueues the request, so that the
// reconcile finds it, whichever of the informer's handlers runs first.
type enqueueDeleted struct {
	*handler.EnqueueRequestForObject
	deletions *deletions
}

func (h enqueueDeleted) Delete(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if !e.DeleteStateUnknown {
		h.deletions.observe(e.Object)
	}
	h.EnqueueRequestForObject.Delete(ctx, e, q)
}

// leftBy tells whether obj, of kind, is one that a deleted DemoVolume named
// name left and that no one has acted on yet: still controlled by it (the
// garbage collector drops a reference to a deleted owner in its own time),
// or, once that reference is dropped, labelled as its and still held by
// the namespace, not yet labelled as retained. An object only labelled as
// the operator's is someone else's. A DemoVolume of that name with current
// as its UID may exist: its objects are its own.
func leftBy(name, kind string, current types.UID) func(client.Object) bool {
	return func(obj client.Object) bool {
		if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
			return refersTo(*ref, name) && ref.UID != current
		}
		labels := obj.GetLabels()
		return labels[kube.LabelManagedBy] == kube.ManagedBy && labels[kube.LabelName] == kind &&
			labels[kube.LabelInstance] == name && labels[retainedLabel] != trueValue &&
			slices.ContainsFunc(obj.GetOwnerReferences(), isHolder)
	}
}

// refersTo tells whether ref is to a DemoVolume named name.
func refersTo(ref metav1.OwnerReference, name string) bool {
	return ref.Kind == gvk.Kind && ref.APIVersion == gvk.GroupVersion().String() && ref.Name == name
}

// leftovers are the claim and the backups a deleted DemoVolume left.
type leftovers struct {
	claim   *corev1.PersistentVolumeClaim
	backups []snapshotv1.VolumeSnapshot
}

func (l *leftovers) empty() bool { return l.claim == nil && len(l.backups) == 0 }

// leftBehind reads, from the API server, what a deleted DemoVolume named
// key.Name left: the cache holds only what is labelled as the operator's,
// and may not hold a backup taken moments before the deletion.
func (r *Reconciler) leftBehind(ctx context.Context, key types.NamespacedName, current types.UID) (*leftovers, error) {
	l := &leftovers{}
	pvc := &corev1.PersistentVolumeClaim{}
	switch err := r.Applier.APIReader.Get(ctx, key, pvc); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("getting claim %s: %w", key.Name, err)
	case pvc.DeletionTimestamp.IsZero() && leftBy(key.Name, kind, current)(pvc):
		l.claim = pvc
	}
	if !r.Snapshots {
		return l, nil
	}
	list := &snapshotv1.VolumeSnapshotList{}
	if err := r.Applier.APIReader.List(ctx, list, client.InNamespace(key.Namespace),
		client.MatchingLabels(kube.SelectorLabels(backup.Kind, key.Name))); err != nil {
		return nil, fmt.Errorf("listing the backups: %w", err)
	}
	for _, b := range list.Items {
		if b.DeletionTimestamp.IsZero() && leftBy(key.Name, backup.Kind, current)(&b) {
			l.backups = append(l.backups, b)
		}
	}
	return l, nil
}

// settle acts on the reclaim policy of the deleted DemoVolume named
// key.Name, on what it left: deletes it with Delete, keeps it otherwise. A
// DemoVolume of that name with current as its UID may exist, made since.
func (r *Reconciler) settle(ctx context.Context, key types.NamespacedName, current types.UID) error {
	last := r.deletions.lastOf(key)
	left, err := r.leftBehind(ctx, key, current)
	if err != nil {
		return err
	}
	if left.empty() {
		if last != nil {
			r.deletions.forget(key, last.UID)
		}
		return nil
	}
	gone := last
	if gone == nil {
		// Seen by no watch: the event is about the DemoVolume by name.
		gone = &seedv1alpha1.DemoVolume{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	}
	if last != nil && last.Spec.ReclaimPolicy == seedv1alpha1.ReclaimDelete {
		if left, err = r.deleteLeft(ctx, last, left); err != nil {
			return err
		}
	}
	if !left.empty() {
		if err := r.keep(ctx, gone, left, last == nil); err != nil {
			return err
		}
	}
	if last != nil {
		r.deletions.forget(key, last.UID)
	}
	return nil
}

// deleteLeft deletes what dv, deleted with Delete, left, and returns what
// was not dv's: left by an earlier DemoVolume of the name, which dv never
// took, and kept.
func (r *Reconciler) deleteLeft(ctx context.Context, dv *seedv1alpha1.DemoVolume, left *leftovers) (*leftovers, error) {
	var deleted []string
	kept := &leftovers{}
	remove := func(obj client.Object, kind string) error {
		uid := obj.GetUID()
		err := r.Applier.Writer.Delete(ctx, obj, client.Preconditions{UID: &uid})
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s %s: %w", kind, obj.GetName(), err)
		}
		deleted = append(deleted, kind+" "+obj.GetName())
		return nil
	}
	if left.claim != nil {
		if !ownedBy(dv, left.claim) {
			kept.claim = left.claim
		} else if err := remove(left.claim, "PersistentVolumeClaim"); err != nil {
			return nil, err
		}
	}
	for i := range left.backups {
		b := &left.backups[i]
		if !ownedBy(dv, b) {
			kept.backups = append(kept.backups, *b)
		} else if err := remove(b, "VolumeSnapshot"); err != nil {
			return nil, err
		}
	}
	if len(deleted) > 0 {
		r.Applier.Recorder.Eventf(dv, nil, corev1.EventTypeNormal, reasonDeleted, "Delete",
			"Deleted %s, as reclaimPolicy Delete says", strings.Join(deleted, ", "))
	}
	return kept, nil
}

// keep keeps what a deleted DemoVolume left, no longer owned and labelled
// as retained, and says so in an event. The backups go first: a claim
// restored from them is worth no more than they are.
func (r *Reconciler) keep(ctx context.Context, dv *seedv1alpha1.DemoVolume, left *leftovers, unseen bool) error {
	disown := func(obj client.Object, kind string) error {
		err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, obj, func(obj client.Object) bool { return disown(dv.Name, kind, obj) })
		if err != nil {
			return fmt.Errorf("keeping %s: %w", obj.GetName(), err)
		}
		return nil
	}
	var backups []string
	for i := range left.backups {
		if err := disown(&left.backups[i], backup.Kind); err != nil {
			return err
		}
		backups = append(backups, left.backups[i].Name)
	}
	slices.Sort(backups)
	if left.claim != nil {
		if err := disown(left.claim, kind); err != nil {
			return err
		}
	}
	message := keptMessage(left.claim, backups)
	if unseen {
		message += ": the operator did not see the DemoVolume deleted, so not the reclaim policy it had"
	}
	var related client.Object
	if left.claim != nil {
		related = left.claim
	}
	r.Applier.Recorder.Eventf(dv, related, corev1.EventTypeNormal, reasonRetained, "Release", "%s", message)
	return nil
}

// leftInCache tells whether the cache holds a claim or a backup (of
// listed, listBackups') that a deleted DemoVolume of dv's name left, which
// the operator has not acted on.
func (r *Reconciler) leftInCache(ctx context.Context, dv *seedv1alpha1.DemoVolume, listed []snapshotv1.VolumeSnapshot) (bool, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	switch err := r.Get(ctx, client.ObjectKeyFromObject(dv), pvc); {
	case err == nil && leftBy(dv.Name, kind, dv.UID)(pvc):
		return true, nil
	case client.IgnoreNotFound(err) != nil:
		return false, fmt.Errorf("getting claim %s: %w", dv.Name, err)
	}
	return slices.ContainsFunc(listed, func(b snapshotv1.VolumeSnapshot) bool { return leftBy(dv.Name, backup.Kind, dv.UID)(&b) }), nil
}

// dropFinalizer removes the finalizer that releases up to 0.3.1 gave
// every DemoVolume, once its namespace holds its claim and backups: read
// from the API server, as a deleted DemoVolume's garbage collector would
// otherwise delete one the cache does not hold yet.
func (r *Reconciler) dropFinalizer(ctx context.Context, dv *seedv1alpha1.DemoVolume) error {
	if !controllerutil.ContainsFinalizer(dv, claimFinalizer) {
		return nil
	}
	holder, err := r.holder(ctx, dv.Namespace)
	if err != nil {
		return err
	}
	left, err := r.leftBehind(ctx, client.ObjectKeyFromObject(dv), "")
	if err != nil {
		return err
	}
	var objects []client.Object
	if left.claim != nil {
		objects = append(objects, left.claim)
	}
	for i := range left.backups {
		objects = append(objects, &left.backups[i])
	}
	for _, obj := range objects {
		if !metav1.IsControlledBy(obj, dv) {
			continue
		}
		if err := kube.PatchMeta(ctx, r.Client, r.Applier.APIReader, obj, func(obj client.Object) bool { return hold(dv, obj, holder) }); err != nil {
			return fmt.Errorf("holding %s: %w", obj.GetName(), err)
		}
	}
	return kube.SetFinalizer(ctx, r.Client, r.Applier.APIReader, dv, claimFinalizer, false)
}
