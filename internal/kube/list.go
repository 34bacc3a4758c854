package kube

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// ListOf is an empty list of obj's kind, as scheme knows them both.
func ListOf(scheme *runtime.Scheme, obj runtime.Object) (client.ObjectList, error) {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return nil, fmt.Errorf("finding the kind of %T: %w", obj, err)
	}
	list, err := scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, fmt.Errorf("making a list of %s: %w", gvk.Kind, err)
	}
	objects, ok := list.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%sList is no list of objects", gvk.Kind)
	}
	return objects, nil
}
