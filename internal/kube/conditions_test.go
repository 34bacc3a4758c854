package kube

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestSetCondition(t *testing.T) {
	g := NewWithT(t)
	ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	g.Expect(SpecApplied(ws)).To(BeFalse(), "no Ready condition yet")

	SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, "PodsNotReady", "0 of 1 pods are ready")
	first := *meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady)
	g.Expect(first.ObservedGeneration).To(BeEquivalentTo(3))
	g.Expect(first.LastTransitionTime.IsZero()).To(BeFalse())
	g.Expect(SpecApplied(ws)).To(BeTrue())

	// Same status, new message: the transition time stays.
	past := metav1.NewTime(first.LastTransitionTime.Add(-3600e9))
	ws.Status.Conditions[0].LastTransitionTime = past
	SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, "PodsNotReady", "0 of 2 pods are ready")
	g.Expect(ws.Status.Conditions).To(HaveLen(1))
	g.Expect(ws.Status.Conditions[0].LastTransitionTime).To(Equal(past))
	g.Expect(ws.Status.Conditions[0].Message).To(Equal("0 of 2 pods are ready"))

	// A new status moves it.
	SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready", "2 of 2 pods are ready")
	g.Expect(ws.Status.Conditions[0].LastTransitionTime).NotTo(Equal(past))

	// A new spec is not applied until the condition is set again.
	ws.Generation = 4
	g.Expect(SpecApplied(ws)).To(BeFalse())
}

func TestSpecAppliedNotAfterAFailure(t *testing.T) {
	for _, reason := range []string{seedv1alpha1.ReasonReconcileFailed, seedv1alpha1.ReasonNameConflict} {
		t.Run(reason, func(t *testing.T) {
			g := NewWithT(t)
			ic := &seedv1alpha1.ImmortalContainer{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
			SetCondition(ic, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reason, "the pod could not be made")
			g.Expect(SpecApplied(ic)).To(BeFalse(), "an object made after this may be the first")
			SetCondition(ic, seedv1alpha1.ConditionReady, metav1.ConditionFalse, "PodPending", "the pod is pending")
			g.Expect(SpecApplied(ic)).To(BeTrue())
		})
	}
}
