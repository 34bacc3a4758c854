package echo

import (
	batchv1ac "k8s.io/client-go/applyconfigurations/batch/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// scheduledKind is the app.kubernetes.io/name of a ScheduledEcho's CronJob,
// Jobs and pods.
const scheduledKind = "scheduledecho"

var scheduledGVK = seedv1alpha1.GroupVersion.WithKind("ScheduledEcho")

// desiredCronJob is the CronJob that prints a ScheduledEcho's message on its
// schedule, in the ScheduledEcho's namespace.
func desiredCronJob(s *seedv1alpha1.ScheduledEcho) *batchv1ac.CronJobApplyConfiguration {
	labels := kube.Labels(scheduledKind, s.Name)
	spec := batchv1ac.CronJobSpec().
		WithSchedule(string(s.Spec.Schedule)).
		WithConcurrencyPolicy(s.Spec.ConcurrencyPolicy).
		WithJobTemplate(batchv1ac.JobTemplateSpec().
			WithLabels(labels).
			WithSpec(batchv1ac.JobSpec().
				WithTemplate(podTemplate(scheduledKind, s.Name, s.Spec.Image, s.Spec.Message))))
	if s.Spec.TimeZone != nil {
		spec.WithTimeZone(*s.Spec.TimeZone)
	}
	if s.Spec.Suspend != nil {
		spec.WithSuspend(*s.Spec.Suspend)
	}
	if s.Spec.StartingDeadlineSeconds != nil {
		spec.WithStartingDeadlineSeconds(*s.Spec.StartingDeadlineSeconds)
	}
	if s.Spec.SuccessfulJobsHistoryLimit != nil {
		spec.WithSuccessfulJobsHistoryLimit(*s.Spec.SuccessfulJobsHistoryLimit)
	}
	if s.Spec.FailedJobsHistoryLimit != nil {
		spec.WithFailedJobsHistoryLimit(*s.Spec.FailedJobsHistoryLimit)
	}
	return batchv1ac.CronJob(s.Name, s.Namespace).
		WithLabels(labels).
		WithOwnerReferences(kube.ControllerReference(s, scheduledGVK)).
		WithSpec(spec)
}
