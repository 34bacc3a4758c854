package echo

import (
	"testing"

	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	batchv1ac "k8s.io/client-go/applyconfigurations/batch/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestDesiredCronJob(t *testing.T) {
	tests := []struct {
		name  string
		s     *seedv1alpha1.ScheduledEcho
		check func(g Gomega, spec *batchv1ac.CronJobSpecApplyConfiguration)
	}{
		{
			name: "defaults",
			s:    newScheduledEcho(),
			check: func(g Gomega, spec *batchv1ac.CronJobSpecApplyConfiguration) {
				g.Expect(spec.Schedule).To(HaveValue(Equal("*/5 * * * *")))
				g.Expect(spec.ConcurrencyPolicy).To(HaveValue(Equal(batchv1.ForbidConcurrent)))
				g.Expect(spec.Suspend).To(HaveValue(BeFalse()))
				g.Expect(spec.SuccessfulJobsHistoryLimit).To(HaveValue(BeEquivalentTo(3)))
				g.Expect(spec.FailedJobsHistoryLimit).To(HaveValue(BeEquivalentTo(1)))
				g.Expect(spec.TimeZone).To(BeNil(), "the controller manager's time zone")
				g.Expect(spec.StartingDeadlineSeconds).To(BeNil())
			},
		},
		{
			name: "suspended, in a time zone, with a deadline and no history",
			s: newScheduledEcho(func(s *seedv1alpha1.ScheduledEcho) {
				s.Spec.Schedule = "@hourly"
				s.Spec.Suspend = ptr.To(true)
				s.Spec.TimeZone = ptr.To("Europe/Paris")
				s.Spec.StartingDeadlineSeconds = ptr.To[int64](30)
				s.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent
				s.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
			}),
			check: func(g Gomega, spec *batchv1ac.CronJobSpecApplyConfiguration) {
				g.Expect(spec.Schedule).To(HaveValue(Equal("@hourly")))
				g.Expect(spec.Suspend).To(HaveValue(BeTrue()))
				g.Expect(spec.TimeZone).To(HaveValue(Equal("Europe/Paris")))
				g.Expect(spec.StartingDeadlineSeconds).To(HaveValue(BeEquivalentTo(30)))
				g.Expect(spec.ConcurrencyPolicy).To(HaveValue(Equal(batchv1.ReplaceConcurrent)))
				g.Expect(spec.SuccessfulJobsHistoryLimit).To(HaveValue(BeEquivalentTo(0)))
			},
		},
		{
			name: "the message, as written, in every run's pod",
			s:    newScheduledEcho(func(s *seedv1alpha1.ScheduledEcho) { s.Spec.Message = "$HOME is not expanded" }),
			check: func(g Gomega, spec *batchv1ac.CronJobSpecApplyConfiguration) {
				pod := spec.JobTemplate.Spec.Template.Spec
				g.Expect(pod.Containers[0].Args).To(Equal([]string{"$$HOME is not expanded"}))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			cj := desiredCronJob(tt.s)

			g.Expect(cj.Name).To(HaveValue(Equal("tick")))
			g.Expect(cj.Namespace).To(HaveValue(Equal("team-a")), "in the ScheduledEcho's namespace, not the operator's")
			g.Expect(cj.OwnerReferences).To(HaveLen(1))
			g.Expect(cj.OwnerReferences[0].Kind).To(HaveValue(Equal("ScheduledEcho")))
			g.Expect(cj.OwnerReferences[0].Controller).To(HaveValue(BeTrue()))
			// The Jobs the CronJob makes carry the managed-by label, so the
			// operator's cache sees them.
			g.Expect(cj.Spec.JobTemplate.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
			g.Expect(cj.Spec.JobTemplate.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", "tick"))
			tt.check(g, cj.Spec)
		})
	}
}
