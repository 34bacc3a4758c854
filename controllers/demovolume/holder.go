package demovolume

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

var namespaceGVK = corev1.SchemeGroupVersion.WithKind("Namespace")

// holder is the owner reference by which the namespace of a DemoVolume
// holds its claim and backups, so that the garbage collector does not
// delete them with it (release.go). It is no controller reference, and
// blocks nothing: the namespace's deletion deletes them as it would
// anyway.
func (r *Reconciler) holder(ctx context.Context, namespace string) (metav1.OwnerReference, error) {
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(namespaceGVK)
	if err := r.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return metav1.OwnerReference{}, fmt.Errorf("getting namespace %s: %w", namespace, err)
	}
	return metav1.OwnerReference{APIVersion: namespaceGVK.GroupVersion().String(), Kind: namespaceGVK.Kind, Name: ns.Name, UID: ns.UID}, nil
}

// holderApply is holder as an apply configuration's owner reference.
func holderApply(ref metav1.OwnerReference) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion(ref.APIVersion).WithKind(ref.Kind).WithName(ref.Name).WithUID(ref.UID)
}

// ownerUIDAnnotation names the DemoVolume a claim or a backup is of, by
// UID: the garbage collector drops the reference to a deleted owner from
// an object its namespace still holds, and the operator must still tell
// what that DemoVolume left from what an earlier one of the name did.
const ownerUIDAnnotation = "seed.example.com/demovolume-uid"

// hold makes obj, one of dv's, held by its namespace's reference ref, and
// annotated with dv's UID. It tells whether obj changed.
func hold(dv *seedv1alpha1.DemoVolume, obj client.Object, ref metav1.OwnerReference) bool {
	changed := false
	if !slices.ContainsFunc(obj.GetOwnerReferences(), func(o metav1.OwnerReference) bool { return o.UID == ref.UID }) {
		obj.SetOwnerReferences(append(obj.GetOwnerReferences(), ref))
		changed = true
	}
	if annotations := obj.GetAnnotations(); annotations[ownerUIDAnnotation] != string(dv.UID) {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[ownerUIDAnnotation] = string(dv.UID)
		obj.SetAnnotations(annotations)
		changed = true
	}
	return changed
}

// ownedBy tells whether obj is dv's, by its controller reference or, once
// the garbage collector dropped that, by its annotation.
func ownedBy(dv *seedv1alpha1.DemoVolume, obj client.Object) bool {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		return ref.UID == dv.UID
	}
	return obj.GetAnnotations()[ownerUIDAnnotation] == string(dv.UID)
}

// isHolder tells whether ref is a namespace's, as holder makes them.
func isHolder(ref metav1.OwnerReference) bool {
	return ref.Kind == namespaceGVK.Kind && ref.APIVersion == namespaceGVK.GroupVersion().String()
}
