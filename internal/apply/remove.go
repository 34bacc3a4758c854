package apply

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// ReasonRemoved is the reason of the event when the operator deletes an
// object its owner's spec no longer asks for.
const ReasonRemoved = "Removed"

// Remove deletes the object of key, of empty's type, when owner controls
// it: one the owner's spec no longer asks for. An object of that name that
// is not the owner's is left alone, and one already gone or going is no
// error. The delete is for that object only (its UID), never one made in
// its place.
func (a *Applier) Remove(ctx context.Context, owner kube.Object, key client.ObjectKey, empty client.Object) error {
	kind := a.kindOf(empty)
	obj, cached, err := a.cached(ctx, key, empty)
	if err != nil {
		return fmt.Errorf("getting %s %s: %w", kind, key, err)
	}
	// One being deleted already (a finalizer holds it) is on its way: a
	// second delete would change nothing, and say it did.
	if !cached || !metav1.IsControlledBy(obj, owner) || !obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	uid := obj.GetUID()
	if err := a.Writer.Delete(ctx, obj, client.Preconditions{UID: &uid}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("deleting %s %s: %w", kind, key, err)
	}
	a.Recorder.Eventf(owner, obj, corev1.EventTypeNormal, ReasonRemoved, "Delete", "%s %s %s", ReasonRemoved, kind, key.Name)
	return nil
}
