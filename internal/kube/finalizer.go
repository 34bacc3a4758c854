package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// SetFinalizer adds finalizer to obj, or removes it, and writes nothing when
// it is already so. The optimistic lock keeps the patch, which replaces the
// whole list, from dropping a finalizer someone else added meanwhile.
//
// When the lock fails, obj is read again from the API server (fresh) and
// the patch tried again: the cache obj came from may be behind for long
// (after an API server outage, until its watch is back, up to half a
// minute), and each try from it would fail the same way. An object that is
// gone has no finalizer left to remove.
func SetFinalizer(ctx context.Context, c client.Client, fresh client.Reader, obj client.Object, finalizer string, present bool) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := setFinalizer(ctx, c, obj, finalizer, present)
		if apierrors.IsConflict(err) {
			if getErr := fresh.Get(ctx, client.ObjectKeyFromObject(obj), obj); getErr != nil {
				return getErr
			}
		}
		return err
	})
	if !present {
		err = client.IgnoreNotFound(err)
	}
	if err != nil {
		return fmt.Errorf("setting finalizer %s to %t on %s: %w", finalizer, present, obj.GetName(), err)
	}
	return nil
}

func setFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string, present bool) error {
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
	return c.Patch(ctx, obj, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
}
