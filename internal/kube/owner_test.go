package kube

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestControllerOf(t *testing.T) {
	webServer := schema.GroupKind{Group: "seed.example.com", Kind: "WebServer"}
	ref := func(apiVersion, kind string, controller bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: "web", UID: "1", Controller: ptr.To(controller)}
	}
	tests := []struct {
		name string
		refs []metav1.OwnerReference
		want []reconcile.Request
	}{
		{
			name: "controlled by one of the kind",
			refs: []metav1.OwnerReference{ref("seed.example.com/v1alpha1", "WebServer", true)},
			want: []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "shop", Name: "web"}}},
		},
		{
			name: "controlled by one of the kind, at another version",
			refs: []metav1.OwnerReference{ref("seed.example.com/v1", "WebServer", true)},
			want: []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "shop", Name: "web"}}},
		},
		{name: "no owner"},
		{name: "owned, not controlled", refs: []metav1.OwnerReference{ref("seed.example.com/v1alpha1", "WebServer", false)}},
		{name: "controlled by another kind", refs: []metav1.OwnerReference{ref("seed.example.com/v1alpha1", "Echo", true)}},
		{name: "controlled by the kind of another group", refs: []metav1.OwnerReference{ref("seed.example.com.evil/v1", "WebServer", true)}},
		{name: "controlled by a core kind of that name", refs: []metav1.OwnerReference{ref("v1", "WebServer", true)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", OwnerReferences: tt.refs}}
			g.Expect(ControllerOf(webServer)(context.Background(), pod)).To(Equal(tt.want))
		})
	}
}
