package echo

import (
	"time"

	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// FuzzDesiredJob builds the Job and the status of every Echo the API
// server admits, and checks that the API server accepts the Job.
func FuzzDesiredJob(f *testing.F) {
	c := testenv.FuzzClient(f)
	f.Add("hello", "Hello", "", int32(6), int32(-1))
	f.Add("e", "$(HOME) `id`; echo \"日本語\" 🚀", "busybox:1.37", int32(0), int32(0))
	f.Fuzz(func(t *testing.T, name, message, image string, backoffLimit, ttl int32) {
		e := &seedv1alpha1.Echo{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testenv.FuzzNamespace},
			Spec:       seedv1alpha1.EchoSpec{Message: message, Image: image, BackoffLimit: &backoffLimit},
		}
		if ttl >= 0 {
			e.Spec.TTLSecondsAfterFinished = &ttl
		}
		if !testenv.Admitted(t, c, e) {
			return
		}
		testenv.ExpectAccepted(t, c, desiredJob(e))
		computeEchoStatus(e, &batchv1.Job{}, nil)
	})
}

// FuzzDesiredCronJob builds the CronJob and the status of every
// ScheduledEcho the API server admits, and checks that the API server
// accepts the CronJob: the CRD's schedule rules stand in for the CronJob
// API's parser.
func FuzzDesiredCronJob(f *testing.F) {
	c := testenv.FuzzClient(f)
	f.Add("tick", "Hello", "*/5 * * * *", "", "Allow", int32(3), int32(1), int64(-1))
	f.Add("t", "Hi", "0 9 * * MON-FRI", "Europe/Paris", "Forbid", int32(0), int32(100), int64(60))
	f.Add("t", "Hi", "@every 1h30m", "", "Replace", int32(100), int32(0), int64(1))
	f.Fuzz(func(t *testing.T, name, message, schedule, timeZone, concurrency string, successful, failed int32, deadline int64) {
		s := &seedv1alpha1.ScheduledEcho{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testenv.FuzzNamespace},
			Spec: seedv1alpha1.ScheduledEchoSpec{
				Message: message, Schedule: seedv1alpha1.CronSchedule(schedule), ConcurrencyPolicy: batchv1.ConcurrencyPolicy(concurrency),
				SuccessfulJobsHistoryLimit: &successful, FailedJobsHistoryLimit: &failed,
			},
		}
		if timeZone != "" {
			// A time zone the CRD's pattern admits but Kubernetes does not
			// know is refused when applied and reported, by design (docs/api.md;
			// the envtest spec "reports a time zone that Kubernetes does not
			// know"): no CRD rule can list the IANA zones. This target checks
			// the schedule rules, so it keeps to zones that exist.
			if _, err := time.LoadLocation(timeZone); err != nil {
				return
			}
			s.Spec.TimeZone = &timeZone
		}
		if deadline >= 0 {
			s.Spec.StartingDeadlineSeconds = &deadline
		}
		if !testenv.Admitted(t, c, s) {
			return
		}
		testenv.ExpectAccepted(t, c, desiredCronJob(s))
		computeScheduledStatus(s, &batchv1.CronJob{}, nil)
	})
}
