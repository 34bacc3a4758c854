package kube

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// Object is a custom resource that reports standard conditions.
type Object interface {
	client.Object
	GetConditions() []metav1.Condition
	SetConditions(conditions []metav1.Condition)
}

// SetCondition sets one condition, stamped with the generation of the spec it
// describes. Its transition time moves only when its status does.
func SetCondition(obj Object, conditionType string, status metav1.ConditionStatus, reason, message string) {
	conditions := obj.GetConditions()
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type:               conditionType,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: obj.GetGeneration(),
	})
	obj.SetConditions(conditions)
}

// SpecApplied tells whether the operator has put the current spec in place,
// as recorded by the Ready condition: of the current generation, and not a
// failure to make or change an owned object. A change to an owned object
// after that is drift, not an update the user asked for; one made after a
// failure may be the first.
func SpecApplied(obj Object) bool {
	ready := meta.FindStatusCondition(obj.GetConditions(), seedv1alpha1.ConditionReady)
	return ready != nil && ready.ObservedGeneration == obj.GetGeneration() &&
		ready.Reason != seedv1alpha1.ReasonReconcileFailed && ready.Reason != seedv1alpha1.ReasonNameConflict
}
