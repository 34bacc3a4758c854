package kube

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// SetFinalizer adds finalizer to obj, or removes it, and writes nothing when
// it is already so. The optimistic lock keeps the patch, which replaces the
// whole list, from dropping a finalizer someone else added meanwhile. An
// object that is gone has no finalizer left to remove.
func SetFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string, present bool) error {
	original, _ := obj.DeepCopyObject().(client.Object)
	changed := false
	if present {
		changed = controllerutil.AddFinalizer(obj, finalizer)
	} else {
		changed = controllerutil.RemoveFinalizer(obj, finalizer)
	}
	if !changed {
		return nil
	}
	err := c.Patch(ctx, obj, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
	if !present {
		err = client.IgnoreNotFound(err)
	}
	if err != nil {
		return fmt.Errorf("setting finalizer %s to %t on %s: %w", finalizer, present, obj.GetName(), err)
	}
	return nil
}
