// Package cachedtest gives tests the objects as the manager's cache keeps
// them, so that a controller's status can be computed from them too: a
// status function that reads a field the cache drops then fails a test
// rather than reading zeros in a user's cluster.
package cachedtest

import (
	"reflect"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/cached"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// AsCached is a copy of obj as the cache built from owned keeps it. It
// fails the test when the cache would not hold obj at all: its kind is not
// owned, or its labels are not those of the objects the cache selects.
//
// An object with no name stands for no object at all (what Apply leaves
// when the name is not the owner's): it is returned as it is.
func AsCached[T client.Object](tb testing.TB, owned []cached.Owned, obj T) T {
	tb.Helper()
	if obj.GetName() == "" {
		return obj
	}
	options := cached.Options(nil, owned...)
	for kind, byObject := range options.ByObject {
		if reflect.TypeOf(kind) != reflect.TypeOf(obj) {
			continue
		}
		if !byObject.Label.Matches(labels.Set(obj.GetLabels())) {
			tb.Fatalf("the cache holds no %T labelled %v: it selects %s", obj, obj.GetLabels(), byObject.Label)
		}
		// A kind's own transform replaces the default one, as in the cache.
		transform := byObject.Transform
		if transform == nil {
			transform = options.DefaultTransform
		}
		kept, err := transform(obj.DeepCopyObject())
		if err != nil {
			tb.Fatalf("transforming %T %s as the cache does: %v", obj, obj.GetName(), err)
		}
		typed, ok := kept.(T)
		if !ok {
			tb.Fatalf("the cache's transform made a %T of a %T", kept, obj)
		}
		return typed
	}
	tb.Fatalf("the cache holds no %T: no controller owns the kind", obj)
	return obj
}

// ExpectSameStatus fails the test unless fromCache, whose status was
// computed from objects as the cache keeps them, has the status of whole,
// computed from the same objects whole. The conditions' transition times
// are not compared: each computation stamps them with its own clock.
func ExpectSameStatus(tb testing.TB, fromCache, whole kube.Object) {
	tb.Helper()
	conditions := fromCache.GetConditions()
	for i, c := range conditions {
		if w := meta.FindStatusCondition(whole.GetConditions(), c.Type); w != nil {
			conditions[i].LastTransitionTime = w.LastTransitionTime
		}
	}
	fromCache.SetConditions(conditions)
	got := reflect.ValueOf(fromCache).Elem().FieldByName("Status").Interface()
	want := reflect.ValueOf(whole).Elem().FieldByName("Status").Interface()
	NewWithT(tb).Expect(got).To(Equal(want), "the status computed from the objects as the cache keeps them")
}
