package kube

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestListOf(t *testing.T) {
	scheme := runtime.NewScheme()
	NewWithT(t).Expect(appsv1.AddToScheme(scheme)).To(Succeed())
	// A kind registered without its list.
	scheme.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.Pod{})
	tests := []struct {
		name    string
		obj     runtime.Object
		want    client.ObjectList
		wantErr string
	}{
		{name: "a kind with its list", obj: &appsv1.Deployment{}, want: &appsv1.DeploymentList{}},
		{name: "a kind whose list is not registered", obj: &corev1.Pod{}, wantErr: "making a list of Pod"},
		{name: "a kind the scheme does not know", obj: &corev1.Service{}, wantErr: "finding the kind of *v1.Service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			list, err := ListOf(scheme, tt.obj)
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(list).To(Equal(tt.want))
		})
	}
}
