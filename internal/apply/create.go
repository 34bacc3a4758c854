package apply

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// Create makes obj for owner, an object made once and never changed after
// (such as a backup), and tells whether it made it. One of its name that
// owner controls already is no error; one that is not owner's is left as
// it is, and Create returns a NameConflictError, said and watched as
// Apply's are. Create records no event: the caller names what it made.
// A refusal as the namespace is being deleted teaches the Applier, as
// Apply's do: Apply then sends nothing more for the owner, and an owner's
// reconcile applies before it creates.
func (a *Applier) Create(ctx context.Context, owner kube.Object, obj client.Object) (created bool, err error) {
	kind := a.kindOf(obj)
	defer func() { countRefusal(kind, err) }()
	key := client.ObjectKeyFromObject(obj)
	err = a.Writer.Create(ctx, obj)
	if err == nil {
		a.conflicts.resolved(conflictKey{kind: kind, namespace: key.Namespace, name: key.Name, owner: owner.GetUID()})
		return true, nil
	}
	if namespaceTerminating(err) {
		a.terminating.learn(ctx, a.Client, a.Client.Scheme(), owner, err)
	}
	if !apierrors.IsAlreadyExists(err) {
		return false, fmt.Errorf("creating %s %s: %w", kind, key, err)
	}
	// The cache holds only what the operator labels: the API server knows
	// whose the object in the way is.
	existing, _ := obj.DeepCopyObject().(client.Object)
	if err := a.APIReader.Get(ctx, key, existing); err != nil {
		return false, fmt.Errorf("getting %s %s, whose name is taken: %w", kind, key, err)
	}
	return false, a.checkControlled(ctx, owner, kind, existing, nil)
}
