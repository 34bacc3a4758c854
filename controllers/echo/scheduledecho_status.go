package echo

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reasons of a ScheduledEcho's conditions.
const (
	reasonScheduled = "Scheduled"
	reasonSuspended = "Suspended"
)

// computeScheduledStatus rebuilds a ScheduledEcho's status from its CronJob,
// as the API server last returned it, and from the error of applying it.
func computeScheduledStatus(s *seedv1alpha1.ScheduledEcho, cronJob *batchv1.CronJob, applyErr error) {
	s.Status.ObservedGeneration = s.Generation
	if applyErr != nil {
		kube.SetCondition(s, seedv1alpha1.ConditionReady, metav1.ConditionFalse, apply.FailureReason(applyErr), applyErr.Error())
		return
	}
	s.Status.CronJobName = cronJob.Name
	s.Status.LastScheduleTime = cronJob.Status.LastScheduleTime
	s.Status.LastSuccessfulTime = cronJob.Status.LastSuccessfulTime
	s.Status.Active = nil
	for _, job := range cronJob.Status.Active {
		s.Status.Active = append(s.Status.Active, job.Name)
	}

	if ptr.Deref(cronJob.Spec.Suspend, false) {
		kube.SetCondition(s, seedv1alpha1.ScheduledEchoSuspended, metav1.ConditionTrue, reasonSuspended, "No new runs start while suspend is true")
		kube.SetCondition(s, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonSuspended,
			fmt.Sprintf("CronJob %s is in place and suspended", cronJob.Name))
		return
	}
	kube.SetCondition(s, seedv1alpha1.ScheduledEchoSuspended, metav1.ConditionFalse, reasonScheduled, "Runs start on schedule")
	kube.SetCondition(s, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonScheduled,
		fmt.Sprintf("CronJob %s runs on schedule %q", cronJob.Name, cronJob.Spec.Schedule))
}
