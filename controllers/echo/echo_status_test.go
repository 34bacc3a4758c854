package echo

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/cached/cachedtest"
)

func TestComputeEchoStatus(t *testing.T) {
	started := metav1.Date(2026, 11, 22, 10, 0, 0, 0, metav1.Now().Location())
	ended := metav1.Date(2026, 11, 22, 10, 0, 5, 0, started.Location())
	podsGone := metav1.Date(2026, 11, 22, 10, 0, 6, 0, started.Location())
	succeededPod := &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"pod-uid"}}
	jobWith := func(status batchv1.JobStatus) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "hello"}, Status: status}
	}

	tests := []struct {
		name           string
		job            *batchv1.Job
		applyErr       error
		wantPhase      seedv1alpha1.EchoPhase
		wantReady      metav1.ConditionStatus
		wantReason     string
		wantComplete   metav1.ConditionStatus
		wantFailed     metav1.ConditionStatus
		wantStart      *metav1.Time
		wantCompletion *metav1.Time
	}{
		{
			name: "apply failed", job: &batchv1.Job{}, applyErr: errors.New("applying Job team-a/hello: forbidden"),
			wantReady: metav1.ConditionFalse, wantReason: seedv1alpha1.ReasonReconcileFailed,
		},
		{
			name: "created, no pod yet", job: jobWith(batchv1.JobStatus{}),
			wantPhase: seedv1alpha1.EchoPending, wantReady: metav1.ConditionFalse, wantReason: reasonJobPending,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionFalse,
		},
		{
			name: "pod starting", job: jobWith(batchv1.JobStatus{StartTime: &started, Active: 1, Ready: ptr.To[int32](0)}),
			wantPhase: seedv1alpha1.EchoPending, wantReady: metav1.ConditionFalse, wantReason: reasonJobPending,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionFalse,
		},
		{
			name: "pod running", job: jobWith(batchv1.JobStatus{StartTime: &started, Active: 1, Ready: ptr.To[int32](1)}),
			wantPhase: seedv1alpha1.EchoRunning, wantReady: metav1.ConditionFalse, wantReason: reasonJobRunning,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionFalse, wantStart: &started,
		},
		{
			name:      "pod succeeded, the Job has yet to count it",
			job:       jobWith(batchv1.JobStatus{StartTime: &started, Ready: ptr.To[int32](0), UncountedTerminatedPods: succeededPod}),
			wantPhase: seedv1alpha1.EchoRunning, wantReady: metav1.ConditionFalse, wantReason: reasonJobRunning,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionFalse, wantStart: &started,
		},
		{
			name: "the Job knows it succeeded, its pod is not gone yet",
			job: jobWith(batchv1.JobStatus{StartTime: &started, UncountedTerminatedPods: succeededPod, Conditions: []batchv1.JobCondition{
				{
					Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached",
					Message: "Reached expected number of succeeded pods", LastTransitionTime: ended,
				},
			}}),
			wantPhase: seedv1alpha1.EchoSucceeded, wantReady: metav1.ConditionTrue, wantReason: reasonSucceeded,
			wantComplete: metav1.ConditionTrue, wantFailed: metav1.ConditionFalse, wantStart: &started, wantCompletion: &ended,
		},
		{
			name: "printed",
			job: jobWith(batchv1.JobStatus{StartTime: &started, CompletionTime: &podsGone, Succeeded: 1, Conditions: []batchv1.JobCondition{
				{
					Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached",
					Message: "Reached expected number of succeeded pods", LastTransitionTime: ended,
				},
				{
					Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached",
					Message: "Reached expected number of succeeded pods", LastTransitionTime: podsGone,
				},
			}}),
			wantPhase: seedv1alpha1.EchoSucceeded, wantReady: metav1.ConditionTrue, wantReason: reasonSucceeded,
			wantComplete: metav1.ConditionTrue, wantFailed: metav1.ConditionFalse, wantStart: &started, wantCompletion: &ended,
		},
		{
			name: "printed, by a Job controller that sets Complete alone",
			job: jobWith(batchv1.JobStatus{StartTime: &started, CompletionTime: &ended, Succeeded: 1, Conditions: []batchv1.JobCondition{
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: ended},
			}}),
			wantPhase: seedv1alpha1.EchoSucceeded, wantReady: metav1.ConditionTrue, wantReason: reasonSucceeded,
			wantComplete: metav1.ConditionTrue, wantFailed: metav1.ConditionFalse, wantStart: &started, wantCompletion: &ended,
		},
		{
			name:      "a pod failed, the next has yet to start",
			job:       jobWith(batchv1.JobStatus{StartTime: &started, Active: 1, Ready: ptr.To[int32](0), Failed: 1}),
			wantPhase: seedv1alpha1.EchoPending, wantReady: metav1.ConditionFalse, wantReason: reasonJobPending,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionFalse,
		},
		{
			name: "the Job knows it gave up, its pods are not gone yet",
			job: jobWith(batchv1.JobStatus{StartTime: &started, Failed: 4, Conditions: []batchv1.JobCondition{
				{
					Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
					Message: "Job has reached the specified backoff limit", LastTransitionTime: ended,
				},
			}}),
			wantPhase: seedv1alpha1.EchoFailedPhase, wantReady: metav1.ConditionFalse, wantReason: reasonJobFailed,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionTrue, wantStart: &started, wantCompletion: &ended,
		},
		{
			name: "gave up",
			job: jobWith(batchv1.JobStatus{StartTime: &started, Failed: 4, Conditions: []batchv1.JobCondition{
				{
					Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
					Message: "Job has reached the specified backoff limit", LastTransitionTime: ended,
				},
				{
					Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
					Message: "Job has reached the specified backoff limit", LastTransitionTime: podsGone,
				},
			}}),
			wantPhase: seedv1alpha1.EchoFailedPhase, wantReady: metav1.ConditionFalse, wantReason: reasonJobFailed,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionTrue, wantStart: &started, wantCompletion: &ended,
		},
		{
			name: "a condition that is not true does not count",
			job: jobWith(batchv1.JobStatus{StartTime: &started, Active: 1, Conditions: []batchv1.JobCondition{
				{Type: batchv1.JobComplete, Status: corev1.ConditionFalse},
			}}),
			wantPhase: seedv1alpha1.EchoPending, wantReady: metav1.ConditionFalse, wantReason: reasonJobPending,
			wantComplete: metav1.ConditionFalse, wantFailed: metav1.ConditionFalse,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			e := newEcho(func(e *seedv1alpha1.Echo) { e.Generation = 2 })
			job := applytest.Applied(t, desiredJob(e), tt.job)
			fromCache := e.DeepCopy()
			computeEchoStatus(e, job, tt.applyErr)
			computeEchoStatus(fromCache, cachedtest.AsCached(t, Owned, job), tt.applyErr)
			cachedtest.ExpectSameStatus(t, fromCache, e)

			g.Expect(e.Status.ObservedGeneration).To(BeEquivalentTo(2))
			g.Expect(e.Status.Phase).To(Equal(tt.wantPhase))
			g.Expect(e.Status.StartTime).To(Equal(tt.wantStart))
			g.Expect(e.Status.CompletionTime).To(Equal(tt.wantCompletion))
			ready := meta.FindStatusCondition(e.Status.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(tt.wantReady))
			g.Expect(ready.Reason).To(Equal(tt.wantReason))
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(2))
			if tt.applyErr != nil {
				g.Expect(ready.Message).To(Equal(tt.applyErr.Error()))
				return
			}
			g.Expect(e.Status.JobName).To(Equal("hello"))
			g.Expect(meta.FindStatusCondition(e.Status.Conditions, seedv1alpha1.EchoComplete)).To(HaveField("Status", tt.wantComplete))
			g.Expect(meta.FindStatusCondition(e.Status.Conditions, seedv1alpha1.EchoFailed)).To(HaveField("Status", tt.wantFailed))
		})
	}
}

// A failed Echo's conditions tell the user how to run it again, since its
// spec cannot change.
func TestFailedEchoSaysHowToRetry(t *testing.T) {
	g := NewWithT(t)
	e := newEcho()
	computeEchoStatus(e, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "hello"}, Status: batchv1.JobStatus{
		Conditions: []batchv1.JobCondition{{
			Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline",
		}},
	}}, nil)
	failed := meta.FindStatusCondition(e.Status.Conditions, seedv1alpha1.EchoFailed)
	g.Expect(failed.Reason).To(Equal("DeadlineExceeded"))
	g.Expect(failed.Message).To(Equal("Job was active longer than specified deadline; to run it again, delete this Echo and create it again"))
}

// The status follows the Job through its updates: it keeps the start time
// recorded while a retried pod waits, and the end does not change when
// Complete follows SuccessCriteriaMet, so that it is written once.
func TestEchoStatusAcrossJobUpdates(t *testing.T) {
	g := NewWithT(t)
	started := metav1.Date(2026, 11, 22, 10, 0, 0, 0, metav1.Now().Location())
	ended := metav1.Date(2026, 11, 22, 10, 0, 9, 0, started.Location())
	podsGone := metav1.Date(2026, 11, 22, 10, 0, 10, 0, started.Location())
	met := batchv1.JobCondition{
		Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached",
		Message: "Reached expected number of succeeded pods", LastTransitionTime: ended,
	}
	complete := met
	complete.Type, complete.LastTransitionTime = batchv1.JobComplete, podsGone
	e := newEcho()
	update := func(status batchv1.JobStatus) seedv1alpha1.EchoStatus {
		computeEchoStatus(e, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "hello"}, Status: status}, nil)
		return *e.Status.DeepCopy()
	}

	update(batchv1.JobStatus{StartTime: &started, Active: 1, Ready: ptr.To[int32](1)})
	g.Expect(e.Status.Phase).To(Equal(seedv1alpha1.EchoRunning))
	retrying := update(batchv1.JobStatus{StartTime: &started, Active: 1, Ready: ptr.To[int32](0), Failed: 1})
	g.Expect(retrying.Phase).To(Equal(seedv1alpha1.EchoPending))
	g.Expect(retrying.StartTime).To(HaveValue(Equal(started)), "the start time recorded when the first pod ran")

	ending := update(batchv1.JobStatus{StartTime: &started, Failed: 1, Conditions: []batchv1.JobCondition{met}})
	g.Expect(ending.Phase).To(Equal(seedv1alpha1.EchoSucceeded))
	done := update(batchv1.JobStatus{
		StartTime: &started, CompletionTime: &podsGone, Failed: 1, Succeeded: 1, Conditions: []batchv1.JobCondition{met, complete},
	})
	g.Expect(done).To(Equal(ending), "Complete after SuccessCriteriaMet changed the status")
}
