// Package v1alpha1 contains the v1alpha1 API of the seed.example.com group.
//
// +kubebuilder:object:generate=true
// +groupName=seed.example.com
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of these types.
var GroupVersion = schema.GroupVersion{Group: "seed.example.com", Version: "v1alpha1"}

// schemeBuilder collects the registration of each kind, which its own file
// adds in init.
var schemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
})

// AddToScheme adds the types of this group and version to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	return schemeBuilder.AddToScheme(s)
}

// register adds kinds to the scheme builder.
func register(objects ...runtime.Object) {
	schemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, objects...)
		return nil
	})
}
