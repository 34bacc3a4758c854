package apply

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/seed-operators/seed-operator/internal/kube"
)

func TestForeignSpecManagers(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	subresource := func(e metav1.ManagedFieldsEntry, name string) metav1.ManagedFieldsEntry {
		e.Subresource = name
		return e
	}
	ours := entry(kube.FieldManager, metav1.ManagedFieldsOperationApply,
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
				entry(kube.FieldManager, metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:selector":{}}}`),
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

func TestStrayManagers(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, ports ...int) metav1.ManagedFieldsEntry {
		elements := make([]string, 0, 1+len(ports))
		elements = append(elements, `".":{}`)
		for _, port := range ports {
			elements = append(elements, fmt.Sprintf(`"k:{\"port\":%d,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}`, port))
		}
		fields := fmt.Sprintf(`{"f:spec":{"f:ports":{%s}}}`, strings.Join(elements, ","))
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	applied := func(ports ...int) metav1.ManagedFieldsEntry {
		return entry(kube.FieldManager, metav1.ManagedFieldsOperationApply, ports...)
	}
	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		port    int32
		want    []string
	}{
		{name: "only the operator's apply", entries: []metav1.ManagedFieldsEntry{applied(80)}, port: 80, want: nil},
		{
			name:    "a port moved by hand, whose new entry the apply would keep beside its own",
			entries: []metav1.ManagedFieldsEntry{applied(), entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, 9999)},
			port:    80,
			want:    []string{"kubectl-edit"},
		},
		{
			name:    "the port the operator's repair wrote, still the spec's",
			entries: []metav1.ManagedFieldsEntry{applied(80), entry(kube.FieldManager, metav1.ManagedFieldsOperationUpdate, 80)},
			port:    80,
			want:    nil,
		},
		{
			name:    "the port the operator's repair wrote, since moved by the spec",
			entries: []metav1.ManagedFieldsEntry{applied(80), entry(kube.FieldManager, metav1.ManagedFieldsOperationUpdate, 80)},
			port:    8081,
			want:    []string{kube.FieldManager},
		},
		{
			name:    "a field the spec sets, changed by hand: the apply takes it back",
			entries: []metav1.ManagedFieldsEntry{applied(), entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, 80)},
			port:    80,
			want:    nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{ManagedFields: tt.entries}}
			desired := corev1ac.Service("web", "team-a").WithSpec(corev1ac.ServiceSpec().WithPorts(corev1ac.ServicePort().
				WithName("http").WithProtocol(corev1.ProtocolTCP).WithPort(tt.port).WithTargetPort(intstr.FromString("http"))))
			got, err := strayManagers(svc, desired)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
