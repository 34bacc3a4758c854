package cached

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/kube"
)

func TestTrimManagedFields(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, subresource string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{
			Manager: manager, Operation: op, Subresource: subresource,
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`),
		}
	}
	applied := entry(kube.FieldManager, metav1.ManagedFieldsOperationApply, "")
	ownStatus := entry(kube.FieldManager, metav1.ManagedFieldsOperationApply, "status")
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
	}{
		{
			name: "a Deployment keeps the operator's apply and other managers' spec entries",
			obj: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
				ManagedFields: []metav1.ManagedFieldsEntry{applied, ownStatus, controllerSpec, controllerStatus, edit},
			}},
			wantEntries: []metav1.ManagedFieldsEntry{applied, edit},
		},
		{
			name: "a Deployment with only status and control-plane entries keeps none",
			obj: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
				ManagedFields: []metav1.ManagedFieldsEntry{controllerStatus, controllerSpec, ownStatus},
			}},
		},
		{
			name:        "a pod the operator applied keeps its entries but the control plane's",
			obj:         pod(applied, scheduler, kubelet, edit),
			wantEntries: []metav1.ManagedFieldsEntry{applied, edit},
		},
		{
			name: "a pod it only watches keeps no managed fields",
			obj:  pod(entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, ""), scheduler, kubelet, edit),
		},
		{
			name: "a pod whose only entry of the operator's is not an apply counts as watched",
			obj:  pod(entry(kube.FieldManager, metav1.ManagedFieldsOperationUpdate, "")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			trimManagedFields(tt.obj)
			kept := tt.obj.GetManagedFields()
			g.Expect(kept).To(Equal(tt.wantEntries))
			g.Expect(kept[len(kept):cap(kept)]).NotTo(ContainElement(Not(BeZero())),
				"a dropped entry left behind the slice's end would keep its fields in the cache")
			if p, ok := tt.obj.(*corev1.Pod); ok {
				g.Expect(p.Spec).To(Equal(podSpec), "the spec is trimToStatus's to drop")
				g.Expect(p.Status).To(Equal(podStatus))
				g.Expect(p.Labels).To(HaveKeyWithValue("app", "a"))
			}
		})
	}
}

// An object the informer hands over that has no metadata, such as the
// marker of a deletion it missed, goes through untouched.
func TestTransformLeavesOtherObjects(t *testing.T) {
	g := NewWithT(t)
	marker := struct{ Key string }{Key: "ns/name"}
	got, err := Owned{}.transform(marker, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(marker))
}

// The cache keeps, of an object whose spec no controller reads, the digest
// of what the operator applied in place of the spec; the Applier's check
// gives the same answer from it as from the whole object.
func TestTrimToStatus(t *testing.T) {
	nginx := applytest.Deployment("nginx:1.27")

	tests := []struct {
		name       string
		obj        func(t *testing.T) *appsv1.Deployment
		desired    apply.ApplyConfiguration
		wantDigest bool
		wantSpec   bool
		want       types.GomegaMatcher
	}{
		{
			name:       "as applied",
			obj:        func(t *testing.T) *appsv1.Deployment { return applytest.AppliedDeployment(t, nginx, nil) },
			desired:    nginx,
			wantDigest: true,
			want:       BeTrue(),
		},
		{
			name:       "a new image is not in place",
			obj:        func(t *testing.T) *appsv1.Deployment { return applytest.AppliedDeployment(t, nginx, nil) },
			desired:    applytest.Deployment("nginx:1.28"),
			wantDigest: true,
			want:       BeFalse(),
		},
		{
			name: "a value changed under the operator's entry",
			obj: func(t *testing.T) *appsv1.Deployment {
				d := applytest.AppliedDeployment(t, nginx, map[string]string{"note": "kept"})
				d.Spec.Template.Spec.Containers[0].Image = "busybox"
				return d
			},
			desired:    nginx,
			wantDigest: true,
			want:       BeFalse(),
		},
		{
			name: "a digest written on the server is not believed",
			obj: func(t *testing.T) *appsv1.Deployment {
				return applytest.AppliedDeployment(t, applytest.Deployment("busybox"), map[string]string{apply.DigestAnnotation: "forged"})
			},
			desired:    nginx,
			wantDigest: true,
			want:       BeFalse(),
		},
		{
			name: "never applied by the operator",
			obj: func(t *testing.T) *appsv1.Deployment {
				d := applytest.AppliedDeployment(t, nginx, map[string]string{apply.DigestAnnotation: "forged"})
				d.ManagedFields = nil
				return d
			},
			desired: nginx,
			want:    BeFalse(),
		},
		{
			name: "an entry that cannot be read keeps the object whole",
			obj: func(t *testing.T) *appsv1.Deployment {
				d := applytest.AppliedDeployment(t, nginx, nil)
				d.ManagedFields[0].FieldsV1 = metav1.NewFieldsV1(`{"f:spec":`)
				return d
			},
			desired:  nginx,
			wantSpec: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := tt.obj(t)
			whole := obj.DeepCopy()
			got, err := Owned{Type: &appsv1.Deployment{}}.transform(obj, nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(BeIdenticalTo(obj), "the cache's object is trimmed in place")
			g.Expect(obj.Status).To(Equal(whole.Status))
			g.Expect(obj.Labels).To(Equal(whole.Labels))
			g.Expect(obj.GetObjectKind().GroupVersionKind().Empty()).To(BeTrue(), "the cache's objects have no kind")
			if tt.wantSpec {
				g.Expect(obj.Spec).To(Equal(whole.Spec))
				g.Expect(obj.ManagedFields).To(Equal(whole.ManagedFields))
			} else {
				g.Expect(obj.Spec).To(BeZero())
				g.Expect(obj.ManagedFields).To(BeNil(), "the digest stands for the operator's entry, which goes with the array it was decoded in")
			}
			if note, ok := whole.Annotations["note"]; ok {
				g.Expect(obj.Annotations).To(HaveKeyWithValue("note", note), "other annotations stay")
			}
			if !tt.wantDigest {
				g.Expect(obj.Annotations).NotTo(HaveKey(apply.DigestAnnotation))
			}
			trimmed := obj.DeepCopy()
			_, err = Owned{Type: &appsv1.Deployment{}}.transform(obj, nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(obj).To(Equal(trimmed), "the transform is idempotent")

			upToDate, err := apply.UpToDate(tt.desired, obj)
			if tt.want == nil {
				g.Expect(err).To(HaveOccurred(), "the reconcile reports the entry it cannot read")
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(upToDate).To(tt.want)
			wholeUpToDate, err := apply.UpToDate(tt.desired, whole)
			g.Expect(err).NotTo(HaveOccurred())
			if whole.Annotations[apply.DigestAnnotation] == "" {
				g.Expect(upToDate).To(Equal(wholeUpToDate), "the same answer as from the whole object")
			}
		})
	}
}

// Of a pod the operator applied, the cache keeps the metadata, the status
// and the digest, and its entry in the managed fields when a controller
// reads it.
func TestTrimToStatusOfAPod(t *testing.T) {
	for _, appliedFieldsRead := range []bool{false, true} {
		t.Run(fmt.Sprintf("applied fields read: %t", appliedFieldsRead), func(t *testing.T) {
			g := NewWithT(t)
			entry := metav1.ManagedFieldsEntry{
				Manager: kube.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}`),
			}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: []metav1.ManagedFieldsEntry{entry}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}},
				Status:     corev1.PodStatus{Phase: corev1.PodRunning},
			}
			_, err := Owned{Type: &corev1.Pod{}, AppliedFieldsRead: appliedFieldsRead}.transform(pod, nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pod.Spec).To(BeZero())
			g.Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
			g.Expect(pod.Annotations).To(HaveKey(apply.DigestAnnotation))
			if appliedFieldsRead {
				g.Expect(pod.ManagedFields).To(ConsistOf(entry))
			} else {
				g.Expect(pod.ManagedFields).To(BeNil())
			}
		})
	}
}
