package kube

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ControllerReference is the owner reference an owned object carries: the
// owner is its controller, and the garbage collector deletes the object
// after its owner (foreground deletion waits for it).
func ControllerReference(owner metav1.Object, gvk schema.GroupVersionKind) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(gvk.GroupVersion().String()).
		WithKind(gvk.Kind).
		WithName(owner.GetName()).
		WithUID(owner.GetUID()).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// EnqueueController reconciles the controller of an object that one of the
// kind gk controls, in the object's namespace: what the builder's Owns
// does, without asking the RESTMapper on every event whether the owner is
// namespaced (each of the operator's kinds is), which took a share of the
// CPU and allocations of a burst (docs/performance.md).
func EnqueueController(gk schema.GroupKind) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(ControllerOf(gk))
}

// ControllerOf maps an object to the request of its controller, if that
// is of the kind gk.
func ControllerOf(gk schema.GroupKind) handler.MapFunc {
	prefix := gk.Group + "/"
	return func(_ context.Context, obj client.Object) []reconcile.Request {
		ref := metav1.GetControllerOfNoCopy(obj)
		if ref == nil || ref.Kind != gk.Kind || !strings.HasPrefix(ref.APIVersion, prefix) {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}}}
	}
}
