package cached

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/reconnect"
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
	// Of is the kind, as the objects' kube.LabelName says, whose objects of
	// Type the controller reads, when it reads only those: the pods it
	// watches are those of its own kind, not those the operator's Jobs
	// and Deployments make for other kinds. Empty, every object of Type
	// the operator manages.
	Of string
}

// Options are the manager's cache options: the namespaces watched
// (nil for all), and, for each owned kind, only the objects the operator
// manages, so that a cluster full of other Deployments and Services costs
// the manager no memory; of those, only the ones made for the kinds that
// read them, when they say (Owned.Of). Of the managed fields, the cache
// keeps only those the operator reads: none of its custom resources', and
// of owned objects', those trimManagedFields keeps. Its informers find the
// API server again as soon as it answers after an outage (package
// reconnect).
func Options(namespaces map[string]cache.Config, owned ...Owned) cache.Options {
	return cache.Options{
		DefaultNamespaces: namespaces,
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject:          managedOnly(owned...),
		NewInformer:       reconnect.NewInformer,
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
		byObject[rs[0].Type] = cache.ByObject{Label: managedSelector(rs.kinds()), Transform: rs.transform()}
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
func (rs readers) transform() func(any) (any, error) {
	digests := newDigestMemo()
	return func(obj any) (any, error) {
		return rs.of(obj).transform(obj, digests)
	}
}

// of is what the readers of obj read of it, together: its spec, and the
// operator's managed-fields entry, when any of them does; its status
// trimmed only when it has one reader, since a second one's trim could
// keep what the first drops.
func (rs readers) of(obj any) Owned {
	var kind string
	if o, ok := obj.(metav1.Object); ok {
		kind = o.GetLabels()[kube.LabelName]
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
	selector := labels.SelectorFromSet(labels.Set{kube.LabelManagedBy: kube.ManagedBy})
	if len(kinds) == 0 {
		return selector
	}
	of, err := labels.NewRequirement(kube.LabelName, selection.In, kinds)
	if err != nil {
		// Only a kind that is no label value gets here: a programming error.
		panic(fmt.Sprintf("selecting objects of kinds %v: %v", kinds, err))
	}
	return selector.Add(*of)
}
