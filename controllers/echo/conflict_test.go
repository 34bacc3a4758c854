package echo

import (
	. "github.com/onsi/ginkgo/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("Echo and ScheduledEcho controllers, when a name they would use is taken", func() {
	userJob := func(namespace, name string) *batchv1.Job {
		return &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "work", Image: "busybox", Command: []string{"echo", "mine"}}},
			}}},
		}
	}
	echo := func(namespace, name string) func() kube.Object {
		return func() kube.Object {
			return &seedv1alpha1.Echo{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
				Spec:       seedv1alpha1.EchoSpec{Message: "Hello"},
			}
		}
	}

	It("leaves a user's Job alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "echo-conflict")
		testenv.NameConflict{Theirs: userJob(namespace, "userjob"), Owner: echo(namespace, "userjob"), OwnerKind: "Echo"}.Expect(ctx, k8sClient)
	})

	// A ScheduledEcho's CronJob makes Jobs named <cronjob>-<n>, with the
	// operator's labels: an Echo of such a name must not take one.
	It("leaves a Job that a ScheduledEcho's CronJob made alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "echo-conflict")
		job := userJob(namespace, "nightly-29000000")
		job.Labels = kube.Labels(scheduledKind, "nightly")
		job.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "batch/v1", Kind: "CronJob", Name: "nightly", UID: "0a6e1a57-0000-4000-8000-000000000001", Controller: ptr.To(true),
		}}
		testenv.NameConflict{Theirs: job, Owner: echo(namespace, job.Name), OwnerKind: "Echo"}.Expect(ctx, k8sClient)
	})

	It("leaves a user's CronJob alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "scheduledecho-conflict")
		testenv.NameConflict{
			Theirs: &batchv1.CronJob{
				ObjectMeta: metav1.ObjectMeta{Name: "nightly-backup", Namespace: namespace},
				Spec: batchv1.CronJobSpec{
					Schedule:    "0 3 * * *",
					JobTemplate: batchv1.JobTemplateSpec{Spec: userJob(namespace, "").Spec},
				},
			},
			Owner: func() kube.Object {
				return &seedv1alpha1.ScheduledEcho{
					ObjectMeta: metav1.ObjectMeta{Name: "nightly-backup", Namespace: namespace},
					Spec:       seedv1alpha1.ScheduledEchoSpec{Message: "Tick", Schedule: "*/5 * * * *"},
				}
			},
			OwnerKind: "ScheduledEcho",
		}.Expect(ctx, k8sClient)
	})
})
