package kube

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldManager owns every field the operator sets on the objects it manages.
const FieldManager = "seed-operator"

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
	Client   client.Client
	Recorder events.EventRecorder
}

// Apply makes the object in the cluster match desired. Fields that someone
// else changed are taken back (forced ownership), fields the operator does
// not set are left alone, and nothing is written when nothing differs.
// live must be an empty object of desired's type; it is filled with the
// object as the API server stored it.
func (a *Applier) Apply(ctx context.Context, owner Object, desired ApplyConfiguration, live client.Object) error {
	kind := ptr.Deref(desired.GetKind(), "")
	key := client.ObjectKey{Namespace: ptr.Deref(desired.GetNamespace(), ""), Name: ptr.Deref(desired.GetName(), "")}

	previous, ok := live.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("%T is not a client.Object", live)
	}
	existed := true
	if err := a.Client.Get(ctx, key, previous); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("getting %s %s: %w", kind, key, err)
		}
		existed = false
	}
	if existed {
		if err := a.removeForeignSpecFields(ctx, owner, desired, previous); err != nil {
			return fmt.Errorf("removing fields others added to %s %s: %w", kind, key, err)
		}
	}

	if err := a.Client.Apply(ctx, desired, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		a.Recorder.Eventf(owner, nil, corev1.EventTypeWarning, ReasonApplyFailed, "Apply",
			"Could not apply %s %s: %v", kind, key.Name, err)
		// The status can still describe the object as it was.
		if existed {
			err = errors.Join(err, remarshal(previous, live))
		}
		return fmt.Errorf("applying %s %s: %w", kind, key, err)
	}
	// The client decoded the API server's answer into desired.
	if err := remarshal(desired, live); err != nil {
		return fmt.Errorf("reading the applied %s %s: %w", kind, key, err)
	}

	reason, verb := changeReason(existed, previous.GetResourceVersion() != live.GetResourceVersion(), SpecObserved(owner))
	if reason != "" {
		a.Recorder.Eventf(owner, live, corev1.EventTypeNormal, reason, verb, "%s %s %s", reason, kind, key.Name)
	}
	return nil
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
