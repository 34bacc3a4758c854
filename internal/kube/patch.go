package kube

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchMeta changes obj as mutate does, and writes the change with a merge
// patch, unless mutate tells that it changed nothing. The optimistic lock
// keeps the patch, which replaces whole lists (finalizers, owner
// references), from dropping what someone else wrote meanwhile.
//
// When the lock fails, obj is read again from the API server (fresh) and
// mutate asked again: the cache obj came from may be behind for long
// (after an API server outage, until its watch is back, up to half a
// minute), and each try from it would fail the same way. mutate sees the
// object as it is then, and may find nothing left to do.
func PatchMeta(ctx context.Context, c client.Client, fresh client.Reader, obj client.Object, mutate func(client.Object) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		original, _ := obj.DeepCopyObject().(client.Object)
		if !mutate(obj) {
			return nil
		}
		err := c.Patch(ctx, obj, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
		if apierrors.IsConflict(err) {
			if getErr := fresh.Get(ctx, client.ObjectKeyFromObject(obj), obj); getErr != nil {
				return getErr
			}
		}
		return err
	})
}
