package immortalcontainer

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// newImmortalContainer is an ImmortalContainer as the API server stores it
// (its spec has no defaults), changed by each mutate function in turn.
func newImmortalContainer(mutate ...func(*seedv1alpha1.ImmortalContainer)) *seedv1alpha1.ImmortalContainer {
	ic := &seedv1alpha1.ImmortalContainer{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "team-a", UID: "uid-1", Generation: 1},
		Spec:       seedv1alpha1.ImmortalContainerSpec{Image: "registry.example.com/app:1"},
	}
	for _, m := range mutate {
		m(ic)
	}
	return ic
}
