package kube

import (
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Owned is a kind of object the operator makes, and what its controllers
// read of those objects from the cache besides their metadata and status
// (of which TrimStatus may keep less).
type Owned struct {
	// Type is an empty object of the kind.
	Type client.Object
	// SpecRead keeps the objects' spec in the cache. Without it the cache
	// keeps, of an object the operator applied, only the digest of what it
	// applied in place of the spec, which is all the Applier compares: a
	// Deployment's pod template is half of what the cache would hold of it.
	SpecRead bool
	// AppliedFieldsRead keeps, of an object whose spec is not read, the
	// managed-fields entry of the operator's applies, for
	// ForeignSpecManagers. Without it the cache keeps only the digest of
	// the fields the entry names.
	AppliedFieldsRead bool
	// TrimStatus, when set, keeps of an object's status only what the
	// controller reads, in place: of a pod the operator only watches, the
	// status is a quarter of what the cache would hold. It trims only the
	// objects no other controller reads, and, like any transform, must
	// keep all of what it kept when given it again.
	TrimStatus func(client.Object)
	// Of is the kind, as the objects' LabelName says, whose objects of
	// Type the controller reads, when it reads only those: the pods it
	// watches are those of its own kind, not those the operator's Jobs
	// and Deployments make for other kinds. Empty, every object of Type
	// the operator manages.
	Of string
}

// CacheOptions are the manager's cache options: the namespaces watched
// (nil for all), and, for each owned kind, only the objects the operator
// manages, so that a cluster full of other Deployments and Services costs
// the manager no memory; of those, only the ones made for the kinds that
// read them, when they say (Owned.Of). Of the managed fields, the cache
// keeps only those the operator reads: none of its custom resources', and
// of owned objects', those TrimManagedFields keeps.
func CacheOptions(namespaces map[string]cache.Config, owned ...Owned) cache.Options {
	return cache.Options{
		DefaultNamespaces: namespaces,
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject:          managedOnly(owned...),
	}
}

// managedOnly caches a kind that several controllers own once, for all of
// them.
func managedOnly(owned ...Owned) map[client.Object]cache.ByObject {
	byType := map[reflect.Type]readers{}
	for _, o := range owned {
		t := reflect.TypeOf(o.Type)
		byType[t] = append(byType[t], o)
	}
	byObject := make(map[client.Object]cache.ByObject, len(byType))
	for _, rs := range byType {
		byObject[rs[0].Type] = cache.ByObject{Label: managedSelector(rs.kinds()), Transform: rs.transform}
	}
	return byObject
}

// readers are the declarations of one kind by the controllers that own it.
type readers []Owned

// kinds are the kinds whose objects the readers read, or nil when one of
// them reads every object of the kind.
func (rs readers) kinds() []string {
	kinds := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.Of == "" {
			return nil
		}
		kinds = append(kinds, r.Of)
	}
	return kinds
}

// transform is what the cache does to each object of the kind: it keeps
// what the object's readers read, together (of).
func (rs readers) transform(obj any) (any, error) {
	return rs.of(obj).transform(obj)
}

// of is what the readers of obj read of it, together: its spec, and the
// operator's managed-fields entry, when any of them does; its status
// trimmed only when it has one reader, since a second one's trim could
// keep what the first drops.
func (rs readers) of(obj any) Owned {
	var kind string
	if o, ok := obj.(metav1.Object); ok {
		kind = o.GetLabels()[LabelName]
	}
	var merged Owned
	read := 0
	for _, r := range rs {
		if r.Of != "" && r.Of != kind {
			continue
		}
		read++
		merged.SpecRead = merged.SpecRead || r.SpecRead
		merged.AppliedFieldsRead = merged.AppliedFieldsRead || r.AppliedFieldsRead
		merged.TrimStatus = r.TrimStatus
	}
	if read > 1 {
		merged.TrimStatus = nil
	}
	return merged
}

// managedSelector selects the objects the operator manages, of the kinds
// given, or of any kind when none is.
func managedSelector(kinds []string) labels.Selector {
	selector := labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy})
	if len(kinds) == 0 {
		return selector
	}
	of, err := labels.NewRequirement(LabelName, selection.In, kinds)
	if err != nil {
		// Only a kind that is no label value gets here: a programming error.
		panic(fmt.Sprintf("selecting objects of kinds %v: %v", kinds, err))
	}
	return selector.Add(*of)
}

// transform trims obj to what o says is read of it.
func (o Owned) transform(obj any) (any, error) {
	if _, err := TrimManagedFields(obj); err != nil {
		return obj, err
	}
	if co, ok := obj.(client.Object); ok && o.TrimStatus != nil {
		o.TrimStatus(co)
	}
	if o.SpecRead {
		return obj, nil
	}
	return trimToStatus(obj, o.AppliedFieldsRead)
}

// trimToStatus replaces the spec of the object with the digest of what the
// operator applied (appliedDigest), and drops the operator's entry in the
// managed fields with it unless keepApplied.
func trimToStatus(obj any, keepApplied bool) (any, error) {
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
	delete(annotations, appliedDigestAnnotation)
	sum, ok := digestOfWhole(o)
	if !ok {
		// Kept whole: the reconcile computes the digest from the object,
		// and reports why it cannot.
		return obj, nil
	}
	if sum != "" {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[appliedDigestAnnotation] = sum
		o.SetAnnotations(annotations)
	}
	if !keepApplied {
		dropManagedFields(o, isApplied)
	}
	spec.SetZero()
	return obj, nil
}

// digestOfWhole is appliedDigest of an object that still has its spec, and
// whether it could be computed.
func digestOfWhole(o client.Object) (string, bool) {
	gvk, err := apiutil.GVKForObject(o, clientgoscheme.Scheme)
	if err != nil {
		return "", false
	}
	sum, err := appliedDigest(o, gvk)
	return sum, err == nil
}

// TrimManagedFields drops from a cached object the managed-field entries
// the operator never reads: those of status writes, and those of the
// control plane's components. ForeignSpecManagers looks for spec fields of
// other managers, and skips the control plane's; UpToDate reads the
// operator's own entry. Status entries are most of an owned object's
// managed fields (a pod's conditions, a Deployment's), and managed fields
// are much of its size.
//
// Of a pod the operator did not apply itself (one of a Deployment), which
// it only watches for its status, it keeps no managed fields.
func TrimManagedFields(obj any) (any, error) {
	o, ok := obj.(metav1.Object)
	if !ok {
		return obj, nil
	}
	applied := slices.ContainsFunc(o.GetManagedFields(), isApplied)
	if pod, ok := obj.(*corev1.Pod); ok && !applied {
		pod.ManagedFields = nil
		return obj, nil
	}
	dropManagedFields(o, func(entry metav1.ManagedFieldsEntry) bool {
		return entry.Subresource == "status" || controlPlaneManagers[entry.Manager]
	})
	return obj, nil
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
