package cached

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// A claim whose spec a controller reads is only trimmed.
func TestOwnedTransformKeepsASpecRead(t *testing.T) {
	g := NewWithT(t)
	claim := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}}
	_, err := Owned{Type: &corev1.PersistentVolumeClaim{}, SpecRead: true}.transform(claim, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(claim.Spec.VolumeName).To(Equal("pv-1"))
	g.Expect(claim.Annotations).NotTo(HaveKey(apply.DigestAnnotation))
}

// A kind that two controllers own is cached once, with what either reads.
func TestOptionsMergesOwners(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{
		Manager: kube.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:restartPolicy":{}}}`),
	}}}, Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever}}
	_, err := byObjectOf(g, Owned{Type: &corev1.Pod{}}, Owned{Type: &corev1.Pod{}, AppliedFieldsRead: true}).Transform(pod)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pod.ManagedFields).To(HaveLen(1), "the entry one of them reads")
	g.Expect(pod.Spec).To(BeZero(), "the spec neither reads")
}

// byObjectOf is the cache's options for the one kind that owned declares.
func byObjectOf(g Gomega, owned ...Owned) cache.ByObject {
	options := Options(nil, owned...)
	g.Expect(options.ByObject).To(HaveLen(1))
	for _, byObject := range options.ByObject {
		return byObject
	}
	return cache.ByObject{}
}

// A status is trimmed for the one controller that reads the object, and
// kept whole when another reads it too.
func TestOptionsTrimsTheStatusOfOneReader(t *testing.T) {
	trim := func(obj client.Object) { obj.(*corev1.Pod).Status = corev1.PodStatus{} }
	tests := []struct {
		name     string
		owned    []Owned
		kind     string
		wantTrim bool
	}{
		{
			name:     "a pod of the kind that trims",
			owned:    []Owned{{Type: &corev1.Pod{}, Of: "webserver", TrimStatus: trim}, {Type: &corev1.Pod{}, Of: "immortalcontainer"}},
			kind:     "webserver",
			wantTrim: true,
		},
		{
			name:  "a pod of another kind",
			owned: []Owned{{Type: &corev1.Pod{}, Of: "webserver", TrimStatus: trim}, {Type: &corev1.Pod{}, Of: "immortalcontainer"}},
			kind:  "immortalcontainer",
		},
		{
			name:  "a pod that an owner of every kind reads too",
			owned: []Owned{{Type: &corev1.Pod{}, Of: "webserver", TrimStatus: trim}, {Type: &corev1.Pod{}}},
			kind:  "webserver",
		},
		{
			name:  "a pod that an owner of every kind, declared first, reads too",
			owned: []Owned{{Type: &corev1.Pod{}}, {Type: &corev1.Pod{}, Of: "webserver", TrimStatus: trim}},
			kind:  "webserver",
		},
		{
			name:  "a pod that two owners trim",
			owned: []Owned{{Type: &corev1.Pod{}, TrimStatus: trim}, {Type: &corev1.Pod{}, TrimStatus: trim}},
			kind:  "webserver",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{kube.LabelName: tt.kind}},
				Status:     corev1.PodStatus{Phase: corev1.PodRunning},
			}
			_, err := byObjectOf(g, tt.owned...).Transform(pod)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.wantTrim {
				g.Expect(pod.Status).To(BeZero())
			} else {
				g.Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
			}
		})
	}
}

// The cache holds the objects of a kind that some controller reads: only
// those of the kinds named when every owner names one.
func TestOptionsSelectsTheKindsRead(t *testing.T) {
	managed := func(kind string) labels.Set {
		return labels.Set{kube.LabelManagedBy: kube.ManagedBy, kube.LabelName: kind}
	}
	tests := []struct {
		name        string
		owned       []Owned
		selected    []labels.Set
		notSelected []labels.Set
	}{
		{
			name:        "one owner of one kind",
			owned:       []Owned{{Type: &corev1.Pod{}, Of: "webserver"}},
			selected:    []labels.Set{managed("webserver")},
			notSelected: []labels.Set{managed("echo"), {kube.LabelName: "webserver"}, {kube.LabelManagedBy: kube.ManagedBy}},
		},
		{
			name:        "owners of two kinds",
			owned:       []Owned{{Type: &corev1.Pod{}, Of: "webserver"}, {Type: &corev1.Pod{}, Of: "immortalcontainer"}},
			selected:    []labels.Set{managed("webserver"), managed("immortalcontainer")},
			notSelected: []labels.Set{managed("echo"), {kube.LabelName: "webserver"}},
		},
		{
			name:        "an owner of every kind, after one of one kind",
			owned:       []Owned{{Type: &corev1.Pod{}, Of: "webserver"}, {Type: &corev1.Pod{}}},
			selected:    []labels.Set{managed("webserver"), managed("echo"), {kube.LabelManagedBy: kube.ManagedBy}},
			notSelected: []labels.Set{{kube.LabelName: "webserver"}},
		},
		{
			name:        "an owner of every kind, before one of one kind",
			owned:       []Owned{{Type: &corev1.Pod{}}, {Type: &corev1.Pod{}, Of: "webserver"}},
			selected:    []labels.Set{managed("webserver"), managed("echo")},
			notSelected: []labels.Set{{kube.LabelName: "webserver"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			selector := byObjectOf(g, tt.owned...).Label
			for _, set := range tt.selected {
				g.Expect(selector.Matches(set)).To(BeTrue(), "%v selected", set)
			}
			for _, set := range tt.notSelected {
				g.Expect(selector.Matches(set)).To(BeFalse(), "%v not selected", set)
			}
		})
	}
}
