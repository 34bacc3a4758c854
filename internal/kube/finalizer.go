package kube

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// SetFinalizer adds finalizer to obj, or removes it, and writes nothing when
// it is already so. An object that is gone has no finalizer left to remove.
func SetFinalizer(ctx context.Context, c client.Client, fresh client.Reader, obj client.Object, finalizer string, present bool) error {
	err := PatchMeta(ctx, c, fresh, obj, func(obj client.Object) bool {
		if present {
			return controllerutil.AddFinalizer(obj, finalizer)
		}
		return controllerutil.RemoveFinalizer(obj, finalizer)
	})
	if !present {
		err = client.IgnoreNotFound(err)
	}
	if err != nil {
		return fmt.Errorf("setting finalizer %s to %t on %s: %w", finalizer, present, obj.GetName(), err)
	}
	return nil
}
