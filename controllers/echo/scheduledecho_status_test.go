package echo

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/cached/cachedtest"
)

func TestComputeScheduledStatus(t *testing.T) {
	scheduled := metav1.Date(2026, 11, 22, 10, 5, 0, 0, metav1.Now().Location())
	succeeded := metav1.Date(2026, 11, 22, 10, 0, 3, 0, scheduled.Location())
	cronJob := func(suspend bool, status batchv1.CronJobStatus) *batchv1.CronJob {
		return &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: "tick"},
			Spec:       batchv1.CronJobSpec{Schedule: "*/5 * * * *", Suspend: ptr.To(suspend)},
			Status:     status,
		}
	}

	tests := []struct {
		name          string
		cronJob       *batchv1.CronJob
		applyErr      error
		wantReady     metav1.ConditionStatus
		wantReason    string
		wantSuspended metav1.ConditionStatus
		wantActive    []string
	}{
		{
			name: "apply failed", cronJob: &batchv1.CronJob{}, applyErr: errors.New(`applying CronJob team-a/tick: unknown time zone Mars/Olympus`),
			wantReady: metav1.ConditionFalse, wantReason: seedv1alpha1.ReasonReconcileFailed,
		},
		{
			name: "never run yet", cronJob: cronJob(false, batchv1.CronJobStatus{}),
			wantReady: metav1.ConditionTrue, wantReason: reasonScheduled, wantSuspended: metav1.ConditionFalse,
		},
		{
			name: "running now, after an earlier success",
			cronJob: cronJob(false, batchv1.CronJobStatus{
				LastScheduleTime: &scheduled, LastSuccessfulTime: &succeeded,
				Active: []corev1.ObjectReference{{Kind: "Job", Name: "tick-29400000"}},
			}),
			wantReady: metav1.ConditionTrue, wantReason: reasonScheduled, wantSuspended: metav1.ConditionFalse,
			wantActive: []string{"tick-29400000"},
		},
		{
			name: "suspended", cronJob: cronJob(true, batchv1.CronJobStatus{LastScheduleTime: &scheduled}),
			wantReady: metav1.ConditionTrue, wantReason: reasonSuspended, wantSuspended: metav1.ConditionTrue,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			s := newScheduledEcho(func(s *seedv1alpha1.ScheduledEcho) {
				s.Status.Active = []string{"an-old-run"}
			})
			cronJob := applytest.Applied(t, desiredCronJob(s), tt.cronJob)
			fromCache := s.DeepCopy()
			computeScheduledStatus(s, cronJob, tt.applyErr)
			computeScheduledStatus(fromCache, cachedtest.AsCached(t, Owned, cronJob), tt.applyErr)
			cachedtest.ExpectSameStatus(t, fromCache, s)

			ready := meta.FindStatusCondition(s.Status.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(tt.wantReady))
			g.Expect(ready.Reason).To(Equal(tt.wantReason))
			if tt.applyErr != nil {
				g.Expect(ready.Message).To(ContainSubstring("unknown time zone"))
				return
			}
			g.Expect(s.Status.CronJobName).To(Equal("tick"))
			g.Expect(s.Status.Active).To(Equal(tt.wantActive))
			g.Expect(s.Status.LastScheduleTime).To(Equal(tt.cronJob.Status.LastScheduleTime))
			g.Expect(s.Status.LastSuccessfulTime).To(Equal(tt.cronJob.Status.LastSuccessfulTime))
			suspended := meta.FindStatusCondition(s.Status.Conditions, seedv1alpha1.ScheduledEchoSuspended)
			g.Expect(suspended).To(HaveField("Status", tt.wantSuspended))
		})
	}
}
