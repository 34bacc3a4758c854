package kube

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestTrimManagedFields(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, subresource string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{
			Manager: manager, Operation: op, Subresource: subresource,
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`),
		}
	}
	applied := entry(FieldManager, metav1.ManagedFieldsOperationApply, "")
	ownStatus := entry(FieldManager, metav1.ManagedFieldsOperationApply, "status")
	controllerStatus := entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status")
	controllerSpec := entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "")
	scheduler := entry("kube-scheduler", metav1.ManagedFieldsOperationUpdate, "binding")
	kubelet := entry("kubelet", metav1.ManagedFieldsOperationUpdate, "status")
	edit := entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "")

	podSpec := corev1.PodSpec{NodeName: "node-0", Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}
	podStatus := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	pod := func(entries ...metav1.ManagedFieldsEntry) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "a"}, ManagedFields: entries},
			Spec:       podSpec,
			Status:     podStatus,
		}
	}

	tests := []struct {
		name        string
		obj         client.Object
		wantEntries []metav1.ManagedFieldsEntry
		wantSpec    any
	}{
		{
			name: "a Deployment keeps the operator's apply and other managers' spec entries",
			obj: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
				ManagedFields: []metav1.ManagedFieldsEntry{applied, ownStatus, controllerSpec, controllerStatus, edit},
			}},
			wantEntries: []metav1.ManagedFieldsEntry{applied, edit},
		},
		{
			name:        "a pod the operator applied keeps its spec",
			obj:         pod(applied, scheduler, kubelet, edit),
			wantEntries: []metav1.ManagedFieldsEntry{applied, edit},
			wantSpec:    podSpec,
		},
		{
			name:     "a pod it only watches keeps its metadata and status, no spec, no managed fields",
			obj:      pod(entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, ""), scheduler, kubelet, edit),
			wantSpec: corev1.PodSpec{},
		},
		{
			name:     "a pod whose only entry of the operator's is not an apply counts as watched",
			obj:      pod(entry(FieldManager, metav1.ManagedFieldsOperationUpdate, "")),
			wantSpec: corev1.PodSpec{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := TrimManagedFields(tt.obj)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(BeIdenticalTo(tt.obj), "the cache's object is trimmed in place")
			g.Expect(tt.obj.GetManagedFields()).To(Equal(tt.wantEntries))
			if p, ok := tt.obj.(*corev1.Pod); ok {
				g.Expect(p.Spec).To(Equal(tt.wantSpec))
				g.Expect(p.Status).To(Equal(podStatus))
				g.Expect(p.Labels).To(HaveKeyWithValue("app", "a"))
			}
		})
	}
}

// An object the informer hands over that has no metadata, such as the
// marker of a deletion it missed, goes through untouched.
func TestTrimManagedFieldsLeavesOtherObjects(t *testing.T) {
	g := NewWithT(t)
	marker := struct{ Key string }{Key: "ns/name"}
	got, err := TrimManagedFields(marker)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(marker))
}
