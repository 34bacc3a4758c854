package kube

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHasForeignSpecFields(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	ours := entry(FieldManager, metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{}}}}}}}`)

	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    bool
	}{
		{name: "only the operator", entries: []metav1.ManagedFieldsEntry{ours}, want: false},
		{
			name: "another manager shares a field the operator sets",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:replicas":{}}}`)},
			want: false,
		},
		{
			name: "status and metadata written by others",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate,
					`{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:replicas":{}}}`)},
			want: false,
		},
		{
			name: "kubectl rollout restart",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-rollout", metav1.ManagedFieldsOperationUpdate,
					`{"f:spec":{"f:template":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{}}}}}}`)},
			want: false,
		},
		{
			name: "a claim bound to its volume by the control plane",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:volumeName":{}}}`)},
			want: false,
		},
		{
			name: "an environment variable added by hand",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate,
					`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{"f:env":{".":{},"k:{\"name\":\"DEBUG\"}":{".":{},"f:name":{},"f:value":{}}}}}}}}}`)},
			want: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{ManagedFields: tt.entries}}
			got, err := hasForeignSpecFields(d)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
