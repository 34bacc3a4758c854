package cached

import (
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/seed-operators/seed-operator/internal/apply"
)

// transform trims obj to what o says is read of it, with the digests
// remembered for its kind (nil: none).
func (o Owned) transform(obj any, digests *digestMemo) (any, error) {
	co, ok := obj.(client.Object)
	if !ok {
		// Such as the marker of a deletion the informer missed.
		return obj, nil
	}
	trimManagedFields(co)
	if o.TrimStatus != nil {
		o.TrimStatus(co)
	}
	if o.SpecRead {
		return obj, nil
	}
	return trimToStatus(obj, o.AppliedFieldsRead, digests)
}

// trimToStatus replaces the spec of the object with the digest of what the
// operator applied (AppliedDigest), and drops the operator's entry in the
// managed fields with it unless keepApplied.
func trimToStatus(obj any, keepApplied bool, digests *digestMemo) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	// A transform is to be idempotent, and an object without a spec was
	// trimmed already: the API server never stores an empty spec of a kind
	// the operator makes.
	spec := reflect.ValueOf(o).Elem().FieldByName("Spec")
	if !spec.CanSet() || spec.IsZero() {
		return obj, nil
	}
	annotations := o.GetAnnotations()
	delete(annotations, apply.DigestAnnotation)
	sum, ok := digests.digest(o)
	if !ok {
		// Kept whole: the reconcile computes the digest from the object,
		// and reports why it cannot.
		return obj, nil
	}
	if sum != "" {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[apply.DigestAnnotation] = sum
		o.SetAnnotations(annotations)
	}
	if !keepApplied {
		dropManagedFields(o, apply.IsApplied)
	}
	spec.SetZero()
	return obj, nil
}

// digestOfWhole is AppliedDigest of an object that still has its spec, and
// whether it could be computed.
func digestOfWhole(o client.Object) (string, bool) {
	gvk, err := apiutil.GVKForObject(o, clientgoscheme.Scheme)
	if err != nil {
		return "", false
	}
	sum, err := apply.AppliedDigest(o, gvk)
	return sum, err == nil
}

// trimManagedFields drops from a cached object, in place, the managed-field entries
// the operator never reads: those of status writes, and those of the
// control plane's components. ForeignSpecManagers looks for spec fields of
// other managers, and skips the control plane's; UpToDate reads the
// operator's own entry. Status entries are most of an owned object's
// managed fields (a pod's conditions, a Deployment's), and managed fields
// are much of its size.
//
// Of a pod the operator did not apply itself (one of a Deployment), which
// it only watches for its status, it keeps no managed fields.
func trimManagedFields(o client.Object) {
	applied := slices.ContainsFunc(o.GetManagedFields(), apply.IsApplied)
	if pod, ok := o.(*corev1.Pod); ok && !applied {
		pod.ManagedFields = nil
		return
	}
	dropManagedFields(o, func(entry metav1.ManagedFieldsEntry) bool {
		return entry.Subresource == "status" || apply.IsControlPlane(entry.Manager)
	})
}

// dropManagedFields drops o's managed-field entries that drop tells, in
// place, and what they held with them: the decoded array stays behind the
// slice, where an entry left past its end would keep its fields alive in
// the cache, and an empty slice the array.
func dropManagedFields(o metav1.Object, drop func(metav1.ManagedFieldsEntry) bool) {
	// DeleteFunc zeroes the entries it moves past the end.
	kept := slices.DeleteFunc(o.GetManagedFields(), drop)
	if len(kept) == 0 {
		kept = nil
	}
	o.SetManagedFields(kept)
}
