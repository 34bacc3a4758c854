package echo

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
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
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, apply.FailureReason(applyErr), applyErr.Error())
		return
	}
	if job.Name == "" {
		return
	}
	e.Status.JobName = job.Name

	// The Job controller says how the Job ends as soon as it knows
	// (SuccessCriteriaMet, FailureTarget), with the reason and message it
	// later gives Complete and Failed, once the pods are gone. The first of
	// each pair is read, so that the Echo's status is written once for the
	// end, whichever the operator sees.
	succeeded := trueCondition(job, batchv1.JobSuccessCriteriaMet, batchv1.JobComplete)
	failed := trueCondition(job, batchv1.JobFailureTarget, batchv1.JobFailed)
	switch {
	case succeeded != nil:
		e.Status.Phase = seedv1alpha1.EchoSucceeded
		e.Status.CompletionTime = ptr.To(succeeded.LastTransitionTime)
		kube.SetCondition(e, seedv1alpha1.EchoComplete, metav1.ConditionTrue, succeeded.Reason, succeeded.Message)
		kube.SetCondition(e, seedv1alpha1.EchoFailed, metav1.ConditionFalse, reasonSucceeded, "The message was printed")
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonSucceeded, "The message was printed")
	case failed != nil:
		e.Status.Phase = seedv1alpha1.EchoFailedPhase
		e.Status.CompletionTime = ptr.To(failed.LastTransitionTime)
		message := fmt.Sprintf("%s; to run it again, delete this Echo and create it again", failed.Message)
		kube.SetCondition(e, seedv1alpha1.EchoComplete, metav1.ConditionFalse, reasonJobFailed, message)
		kube.SetCondition(e, seedv1alpha1.EchoFailed, metav1.ConditionTrue, failed.Reason, message)
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonJobFailed, message)
	default:
		phase, reason, message := seedv1alpha1.EchoPending, reasonJobPending, "Waiting for the Job's pod to start"
		if podRan(job) {
			phase, reason, message = seedv1alpha1.EchoRunning, reasonJobRunning, "The Job's pod is running"
		}
		e.Status.Phase = phase
		kube.SetCondition(e, seedv1alpha1.EchoComplete, metav1.ConditionFalse, reason, message)
		kube.SetCondition(e, seedv1alpha1.EchoFailed, metav1.ConditionFalse, reason, message)
		kube.SetCondition(e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reason, message)
	}
	// The Job's start time comes with the first phase past Pending: the
	// Job controller sets it before its pod is scheduled, and recorded then
	// it would cost each Echo a status write of its own.
	if e.Status.Phase != seedv1alpha1.EchoPending {
		e.Status.StartTime = job.Status.StartTime.DeepCopy()
	}
}

// podRan tells whether the Job's pod is ready, or has succeeded and the
// Job controller has yet to say that the Job is done.
func podRan(job *batchv1.Job) bool {
	uncounted := job.Status.UncountedTerminatedPods
	return ptr.Deref(job.Status.Ready, 0) > 0 || job.Status.Succeeded > 0 || (uncounted != nil && len(uncounted.Succeeded) > 0)
}

// trueCondition is the first of the Job's conditions of the given types
// that is true, in the order of types.
func trueCondition(job *batchv1.Job, types ...batchv1.JobConditionType) *batchv1.JobCondition {
	for _, conditionType := range types {
		for i, c := range job.Status.Conditions {
			if c.Type == conditionType && c.Status == corev1.ConditionTrue {
				return &job.Status.Conditions[i]
			}
		}
	}
	return nil
}
