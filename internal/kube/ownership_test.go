package kube

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
)

func TestForeignSpecManagers(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	subresource := func(e metav1.ManagedFieldsEntry, name string) metav1.ManagedFieldsEntry {
		e.Subresource = name
		return e
	}
	ours := entry(FieldManager, metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{}}}}}}}`)

	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    []string
	}{
		{name: "only the operator", entries: []metav1.ManagedFieldsEntry{ours}, want: nil},
		{
			name: "another manager shares a field the operator sets",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:replicas":{}}}`)},
			want: nil,
		},
		{
			name: "status and metadata written by others",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate,
					`{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:replicas":{}}}`)},
			want: nil,
		},
		{
			name: "kubectl rollout restart",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-rollout", metav1.ManagedFieldsOperationUpdate,
					`{"f:spec":{"f:template":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{}}}}}}`)},
			want: nil,
		},
		{
			name: "a claim bound to its volume by the control plane",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:volumeName":{}}}`)},
			want: nil,
		},
		{
			name: "an environment variable added by hand",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate,
					`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{"f:env":{".":{},"k:{\"name\":\"DEBUG\"}":{".":{},"f:name":{},"f:value":{}}}}}}}}}`)},
			want: []string{"kubectl-edit"},
		},
		{
			name: "kubectl scale, through the scale subresource, after a field the operator no longer owns",
			entries: []metav1.ManagedFieldsEntry{
				entry(FieldManager, metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:selector":{}}}`),
				subresource(entry("kubectl", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:replicas":{}}}`), "scale")},
			want: []string{"kubectl"},
		},
		{
			name: "a debug container added by kubectl debug",
			entries: []metav1.ManagedFieldsEntry{ours,
				subresource(entry("kubectl-debug", metav1.ManagedFieldsOperationUpdate,
					`{"f:spec":{"f:ephemeralContainers":{".":{},"k:{\"name\":\"debugger\"}":{".":{},"f:name":{}}}}}`), "ephemeralcontainers")},
			want: nil,
		},
		{
			name: "two managers, each with an addition, named once each",
			entries: []metav1.ManagedFieldsEntry{ours,
				entry("kubectl-patch", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:tolerations":{}}}`),
				entry("kubectl-patch", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:paused":{}}}`),
				entry("argocd", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:minReadySeconds":{}}}`)},
			want: []string{"argocd", "kubectl-patch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{ManagedFields: tt.entries}}
			got, err := ForeignSpecManagers(d)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

func TestReplaceSpecPatch(t *testing.T) {
	g := NewWithT(t)
	desired := appsv1ac.Deployment("web", "team-a").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(2))
	patch, err := replaceSpecPatch(desired)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patch).To(MatchJSON(`[{"op": "replace", "path": "/spec", "value": {"replicas": 2}}]`))
}
