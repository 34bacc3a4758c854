package echo

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// newEcho is an Echo as the API server stores it after defaulting, changed
// by each mutate function in turn.
func newEcho(mutate ...func(*seedv1alpha1.Echo)) *seedv1alpha1.Echo {
	e := &seedv1alpha1.Echo{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "team-a", UID: "uid-1", Generation: 1},
		Spec: seedv1alpha1.EchoSpec{
			Message:      "Hello",
			Image:        seedv1alpha1.DefaultEchoImage,
			BackoffLimit: ptr.To[int32](3),
		},
	}
	for _, m := range mutate {
		m(e)
	}
	return e
}

// newScheduledEcho is a ScheduledEcho as the API server stores it after
// defaulting, changed by each mutate function in turn.
func newScheduledEcho(mutate ...func(*seedv1alpha1.ScheduledEcho)) *seedv1alpha1.ScheduledEcho {
	s := &seedv1alpha1.ScheduledEcho{
		ObjectMeta: metav1.ObjectMeta{Name: "tick", Namespace: "team-a", UID: "uid-2", Generation: 1},
		Spec: seedv1alpha1.ScheduledEchoSpec{
			Message:                    "Tick",
			Schedule:                   "*/5 * * * *",
			Suspend:                    ptr.To(false),
			ConcurrencyPolicy:          batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: ptr.To[int32](3),
			FailedJobsHistoryLimit:     ptr.To[int32](1),
			Image:                      seedv1alpha1.DefaultEchoImage,
		},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}
