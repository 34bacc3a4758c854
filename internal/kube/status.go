package kube

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatus writes the status of obj, as changed from original in memory,
// and writes nothing when it did not change.
func PatchStatus(ctx context.Context, c client.Client, original, obj client.Object) error {
	if equality.Semantic.DeepEqual(original, obj) {
		return nil
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFrom(original)); err != nil {
		return fmt.Errorf("patching status: %w", err)
	}
	return nil
}
