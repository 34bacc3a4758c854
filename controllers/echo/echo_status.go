package echo

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reasons of an Echo's conditions, beside those copied from the Job.
const (
	reasonJobPending = "JobPending"
	reasonJobRunning = "JobRunning"
	reasonSucceeded  = "Succeeded"
	reasonJobFailed  = "JobFailed"
)

// finished tells whether an Echo's Job has run to its end, as last recorded.
func finished(e *seedv1alpha1.Echo) bool {
	return e.Status.Phase == seedv1alpha1.EchoSucceeded || e.Status.Phase == seedv1alpha1.EchoFailedPhase
}

// computeEchoStatus rebuilds an Echo's status from its Job, as the API server
// last returned it, and from the error of applying it. Once the Echo has
// finished, its result is kept even when the Job is gone.
func computeEchoStatus(e *seedv1alpha1.Echo, job *batchv1.Job, applyErr error) {
	e.Status.ObservedGeneration = e.Generation
	if applyErr != nil {
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed, applyErr.Error())
		return
	}
	if job.Name == "" {
		return
	}
	e.Status.JobName = job.Name
	e.Status.StartTime = job.Status.StartTime

	complete, failed := jobCondition(job, batchv1.JobComplete), jobCondition(job, batchv1.JobFailed)
	switch {
	case complete != nil:
		e.Status.Phase = seedv1alpha1.EchoSucceeded
		e.Status.CompletionTime = job.Status.CompletionTime
		kube.SetCondition(e, seedv1alpha1.EchoComplete, metav1.ConditionTrue, complete.Reason, complete.Message)
		kube.SetCondition(e, seedv1alpha1.EchoFailed, metav1.ConditionFalse, reasonSucceeded, "The message was printed")
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonSucceeded, "The message was printed")
	case failed != nil:
		e.Status.Phase = seedv1alpha1.EchoFailedPhase
		e.Status.CompletionTime = &failed.LastTransitionTime
		message := fmt.Sprintf("%s; to run it again, delete this Echo and create it again", failed.Message)
		kube.SetCondition(e, seedv1alpha1.EchoComplete, metav1.ConditionFalse, reasonJobFailed, message)
		kube.SetCondition(e, seedv1alpha1.EchoFailed, metav1.ConditionTrue, failed.Reason, message)
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonJobFailed, message)
	default:
		phase, reason, message := seedv1alpha1.EchoPending, reasonJobPending, "Waiting for the Job's pod to start"
		if job.Status.Ready != nil && *job.Status.Ready > 0 {
			phase, reason, message = seedv1alpha1.EchoRunning, reasonJobRunning, "The Job's pod is running"
		}
		e.Status.Phase = phase
		kube.SetCondition(e, seedv1alpha1.EchoComplete, metav1.ConditionFalse, reason, message)
		kube.SetCondition(e, seedv1alpha1.EchoFailed, metav1.ConditionFalse, reason, message)
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reason, message)
	}
}

// jobCondition is the Job's condition of the given type when it is true.
func jobCondition(job *batchv1.Job, conditionType batchv1.JobConditionType) *batchv1.JobCondition {
	for i, c := range job.Status.Conditions {
		if c.Type == conditionType && c.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}
