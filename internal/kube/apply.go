package kube

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// FieldManager owns every field the operator sets on the objects it manages.
const FieldManager = "seed-operator"

// LeaderElectionID names the Lease on which the operator's replicas elect
// the one that reconciles.
const LeaderElectionID = "seed-operator.seed.example.com"

// Event reasons for what the operator does to owned objects.
const (
	ReasonCreated     = "Created"
	ReasonRecreated   = "Recreated"
	ReasonUpdated     = "Updated"
	ReasonRepaired    = "Repaired"
	ReasonApplyFailed = "ApplyFailed"
)

// ApplyConfiguration is a typed apply configuration from client-go, which
// names the object it describes.
type ApplyConfiguration interface {
	runtime.ApplyConfiguration
	GetKind() *string
	GetName() *string
	GetNamespace() *string
}

// Applier creates and updates the objects a custom resource owns with
// server-side apply, and records on the owner an event for each change.
type Applier struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server, to confirm that an object the
	// cache does not have yet is really missing.
	APIReader client.Reader
	Recorder  events.EventRecorder
}

// NewApplier is the Applier of the manager's controllers: it writes as the
// operator's field manager and records events under the operator's name.
func NewApplier(mgr manager.Manager) *Applier {
	return &Applier{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder(FieldManager),
	}
}

// ApplyOption changes how Apply treats an object.
type ApplyOption func(*applyOptions)

type applyOptions struct {
	exclusive bool
}

// Exclusive makes the operator's spec the whole spec of the object: spec
// fields someone else added are removed too. It suits kinds whose spec can
// be rewritten in full, such as Deployments and Services, and not those with
// immutable fields the API server fills in, such as a Job's selector.
func Exclusive() ApplyOption {
	return func(o *applyOptions) { o.exclusive = true }
}

// Apply makes the object in the cluster match desired. Fields that someone
// else changed are taken back (forced ownership), fields the operator does
// not set are left alone unless the apply is Exclusive, and nothing is
// written when nothing differs. live must be an empty object of desired's
// type; it is filled with the object as the API server stored it, or, when
// Apply fails, as it was before, so that the status can still describe it.
func (a *Applier) Apply(ctx context.Context, owner Object, desired ApplyConfiguration, live client.Object, opts ...ApplyOption) error {
	var o applyOptions
	for _, opt := range opts {
		opt(&o)
	}
	kind := ptr.Deref(desired.GetKind(), "")
	key := client.ObjectKey{Namespace: ptr.Deref(desired.GetNamespace(), ""), Name: ptr.Deref(desired.GetName(), "")}

	previous, existed, err := a.get(ctx, key, live)
	if err != nil {
		return fmt.Errorf("getting %s %s: %w", kind, key, err)
	}
	if err := a.apply(ctx, owner, desired, key, previous, existed && o.exclusive); err != nil {
		if existed {
			err = errors.Join(err, remarshal(previous, live))
		}
		return err
	}
	// The client decoded the API server's answer into desired.
	if err := remarshal(desired, live); err != nil {
		return fmt.Errorf("reading the applied %s %s: %w", kind, key, err)
	}

	// A different UID: the object read was deleted meanwhile, and the apply
	// made a new one.
	replaced := existed && previous.GetUID() != live.GetUID()
	reason, verb := changeReason(existed && !replaced, previous.GetResourceVersion() != live.GetResourceVersion(), SpecObserved(owner))
	if reason != "" {
		a.Recorder.Eventf(owner, live, corev1.EventTypeNormal, reason, verb, "%s %s %s", reason, kind, key.Name)
	}
	return nil
}

// apply applies desired, after removing the spec fields others added to
// previous when asked to repair it.
func (a *Applier) apply(
	ctx context.Context, owner Object, desired ApplyConfiguration, key client.ObjectKey, previous client.Object, repair bool,
) error {
	kind := ptr.Deref(desired.GetKind(), "")
	if repair {
		if err := a.removeForeignSpecFields(ctx, owner, desired, previous); err != nil {
			return fmt.Errorf("repairing %s %s: %w", kind, key, err)
		}
	}
	if err := a.Client.Apply(ctx, desired, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		a.warn(owner, "Apply", "Could not apply %s %s: %v", kind, key.Name, err)
		return fmt.Errorf("applying %s %s: %w", kind, key, err)
	}
	return nil
}

// maxEventNote is the longest note, in bytes, the API server takes in an
// event.
const maxEventNote = 1024

// warn records a warning event on owner, cut to the length an event may
// have: the API server's error messages can be longer, and an event that
// is too long is dropped entirely.
func (a *Applier) warn(owner Object, action, format string, args ...any) {
	a.Recorder.Eventf(owner, nil, corev1.EventTypeWarning, ReasonApplyFailed, action, "%s", truncate(fmt.Sprintf(format, args...), maxEventNote))
}

// truncate cuts s to at most limit bytes, on a character boundary, and
// marks the cut with an ellipsis.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := limit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// get reads an object from the cache and, when the cache may be behind,
// from the API server: right after the operator created an object, the
// cache may not have seen it yet, and it must not be reported as created
// twice; an object the cache has as terminating may be gone, or replaced
// already, and its replacement must not be reported as created again.
//
// It reads into copies of empty, and returns what it read (an empty object
// when there is none).
func (a *Applier) get(ctx context.Context, key client.ObjectKey, empty client.Object) (client.Object, bool, error) {
	fresh := func() client.Object {
		obj, _ := empty.DeepCopyObject().(client.Object)
		return obj
	}
	obj := fresh()
	err := a.Client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) || (err == nil && !obj.GetDeletionTimestamp().IsZero()) {
		// Decoding into a filled object would keep its map entries.
		obj = fresh()
		err = a.APIReader.Get(ctx, key, obj)
	}
	switch {
	case apierrors.IsNotFound(err):
		return fresh(), false, nil
	case err != nil:
		return nil, false, err
	}
	return obj, true, nil
}

// changeReason names what an apply did, for the event on the owner: whether
// the object had to be made or changed, and whether that was the user's
// doing (a new spec) or drift being put back (the spec was already in place).
func changeReason(existed, changed, specObserved bool) (reason, action string) {
	switch {
	case !existed && specObserved:
		return ReasonRecreated, "Create"
	case !existed:
		return ReasonCreated, "Create"
	case !changed:
		return "", ""
	case specObserved:
		return ReasonRepaired, "Update"
	default:
		return ReasonUpdated, "Update"
	}
}
