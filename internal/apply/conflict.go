package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// NameConflictError says that an object of the name a custom resource would
// give one of its objects exists and is not the resource's: the operator
// leaves it as it is.
type NameConflictError struct {
	// Kind and Name are the object's.
	Kind, Name string
	// OwnerKind and OwnerName are the resource's that wanted the name.
	OwnerKind, OwnerName string
	// ControlledBy is the kind and name of the object's controller, if it
	// has one.
	ControlledBy string
}

func (e *NameConflictError) Error() string {
	whose := fmt.Sprintf("is not managed by %s %s", e.OwnerKind, e.OwnerName)
	if e.ControlledBy != "" {
		whose = "belongs to " + e.ControlledBy
	}
	return fmt.Sprintf("%s %s already exists and %s, so the operator leaves it alone: rename the %s, or delete or rename the %s",
		e.Kind, e.Name, whose, e.OwnerKind, e.Kind)
}

// IsNameConflict tells whether err, or an error joined or wrapped in it,
// is a NameConflictError.
func IsNameConflict(err error) bool {
	var conflict *NameConflictError
	return errors.As(err, &conflict)
}

// FailureReason is the Ready condition's reason for err, the failure of a
// reconcile's steps: NameConflict when an object of the name the resource
// would use is not its own, ReconcileFailed otherwise.
func FailureReason(err error) string {
	if IsNameConflict(err) {
		return seedv1alpha1.ReasonNameConflict
	}
	return seedv1alpha1.ReasonReconcileFailed
}

// Adoptable tells whether the operator may take over an object that its
// owner does not control. Only what the operator itself once made and let
// go qualifies, such as a claim retained by a deleted DemoVolume of the
// same name.
type Adoptable func(obj client.Object) bool

// mayApply tells whether owner may apply obj, an object of the name it
// gives one of its objects: when it controls it (by its UID), or
// adoptable (which may be nil) says it may take it over.
func mayApply(owner kube.Object, obj client.Object, adoptable Adoptable) bool {
	return metav1.IsControlledBy(obj, owner) || (adoptable != nil && adoptable(obj))
}

// checkControlled returns a NameConflictError unless owner may apply obj
// (mayApply). A conflict is recorded as a warning event on owner, and obj
// is watched, so that owner is reconciled again when it goes away or
// changes hands.
func (a *Applier) checkControlled(ctx context.Context, owner kube.Object, kind string, obj client.Object, adoptable Adoptable) error {
	key := conflictKey{kind: kind, namespace: obj.GetNamespace(), name: obj.GetName(), owner: owner.GetUID()}
	if mayApply(owner, obj, adoptable) {
		a.conflicts.resolved(key)
		return nil
	}
	conflict := &NameConflictError{Kind: kind, Name: obj.GetName(), OwnerKind: a.kindOf(owner), OwnerName: owner.GetName()}
	if ref := metav1.GetControllerOf(obj); ref != nil {
		conflict.ControlledBy = ref.Kind + " " + ref.Name
		if ref.Kind == conflict.OwnerKind && ref.Name == owner.GetName() {
			conflict.ControlledBy += " (an earlier one of this name, still being deleted)"
		}
	}
	ctrl.LoggerFrom(ctx).Info("Leaving alone an object that is not the resource's", "kind", conflict.Kind, "name", conflict.Name)
	resource, err := a.resourceOf(obj)
	if err != nil {
		a.warnConflict(owner, conflict, false)
		return fmt.Errorf("%w (and watching it failed: %w)", conflict, err)
	}
	a.warnConflict(owner, conflict, a.conflicts.watch(key, resource, conflict.OwnerKind, client.ObjectKeyFromObject(owner)))
	return conflict
}

// warnConflict records the conflict as a warning event on owner when it
// begins: not when this process watches it already (seen), nor when the
// owner's Ready condition reports it (seen by an earlier leader). Either
// alone would say it again: the cached owner a reconcile reads may not yet
// have the status the reconcile before it wrote.
func (a *Applier) warnConflict(owner kube.Object, conflict *NameConflictError, seen bool) {
	if seen || reported(owner, conflict) {
		return
	}
	a.Recorder.Eventf(owner, nil, corev1.EventTypeWarning, seedv1alpha1.ReasonNameConflict, "Apply", "%s", conflict.Error())
}

// reported tells whether one of owner's conditions already reports the
// conflict: Ready with NameConflict, or the condition of what the object
// was for with a reason of its own (a DemoVolume's BackedUp says
// BackupNameConflict). The event marks the moment it began, not every
// reconcile that finds it again.
func reported(owner kube.Object, conflict *NameConflictError) bool {
	return slices.ContainsFunc(owner.GetConditions(), func(c metav1.Condition) bool {
		return strings.HasSuffix(c.Reason, seedv1alpha1.ReasonNameConflict) && strings.Contains(c.Message, conflict.Error())
	})
}

// resourceOf is the API resource of obj's kind.
func (a *Applier) resourceOf(obj client.Object) (schema.GroupVersionResource, error) {
	gvk, err := apiutil.GVKForObject(obj, a.Client.Scheme())
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	mapping, err := a.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return mapping.Resource, nil
}

// kindOf is the kind of obj, as the scheme names its type.
func (a *Applier) kindOf(obj runtime.Object) string {
	gvk, err := apiutil.GVKForObject(obj, a.Client.Scheme())
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}
