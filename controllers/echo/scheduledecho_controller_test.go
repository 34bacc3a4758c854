package echo

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("ScheduledEcho controller", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "scheduledecho")
	})

	scheduledEcho := func(name string, mutate ...func(*seedv1alpha1.ScheduledEcho)) *seedv1alpha1.ScheduledEcho {
		s := &seedv1alpha1.ScheduledEcho{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec:       seedv1alpha1.ScheduledEchoSpec{Message: "Tick", Schedule: "*/5 * * * *"},
		}
		for _, m := range mutate {
			m(s)
		}
		return s
	}
	create := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.ScheduledEcho)) *seedv1alpha1.ScheduledEcho {
		s := scheduledEcho(name, mutate...)
		Expect(k8sClient.Create(ctx, s)).To(Succeed())
		return s
	}
	cronJobOf := func(ctx SpecContext, s *seedv1alpha1.ScheduledEcho) *batchv1.CronJob {
		cj := &batchv1.CronJob{}
		testenv.Get(ctx, k8sClient, client.ObjectKeyFromObject(s), cj)
		return cj
	}
	expectCronJob := func(ctx SpecContext, s *seedv1alpha1.ScheduledEcho, check func(g Gomega, cj *batchv1.CronJob)) {
		Eventually(ctx, func(g Gomega) { check(g, cronJobOf(ctx, s)) }).Should(Succeed())
	}

	It("creates a CronJob named after it, in its namespace, that forbids overlapping runs", func(ctx SpecContext) {
		s := create(ctx, "tick")

		cj := cronJobOf(ctx, s)
		Expect(apply.UpToDate(desiredCronJob(s), cj)).To(BeTrue(), "the next reconcile finds the CronJob as applied, and sends nothing")
		testenv.ExpectCachedUpToDate(ctx, scheduledReconciler, desiredCronJob(s), &batchv1.CronJob{})
		Expect(cj.OwnerReferences).To(ConsistOf(And(
			HaveField("UID", s.UID), HaveField("Kind", "ScheduledEcho"), HaveField("Controller", HaveValue(BeTrue())),
		)))
		Expect(cj.Spec.Schedule).To(Equal("*/5 * * * *"))
		Expect(cj.Spec.ConcurrencyPolicy).To(Equal(batchv1.ForbidConcurrent))
		Expect(cj.Spec.Suspend).To(HaveValue(BeFalse()))
		Expect(cj.Spec.JobTemplate.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
		Expect(cj.Spec.JobTemplate.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Args", []string{"Tick"})))

		testenv.ExpectEvent(ctx, k8sClient, s, "ScheduledEcho", "Created", "CronJob")
		testenv.ExpectCondition(ctx, k8sClient, s, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonScheduled)
		Expect(s.Status.CronJobName).To(Equal("tick"))
	})

	It("rolls changes of schedule, message and suspend into the CronJob", func(ctx SpecContext) {
		s := create(ctx, "tick")
		cronJobOf(ctx, s)

		testenv.Update(ctx, k8sClient, s, func(s *seedv1alpha1.ScheduledEcho) {
			s.Spec.Schedule = "0 9 * * MON-FRI"
			s.Spec.TimeZone = ptr.To("Europe/Paris")
			s.Spec.Message = "Good morning"
			s.Spec.Suspend = ptr.To(true)
		})
		expectCronJob(ctx, s, func(g Gomega, cj *batchv1.CronJob) {
			g.Expect(cj.Spec.Schedule).To(Equal("0 9 * * MON-FRI"))
			g.Expect(cj.Spec.TimeZone).To(HaveValue(Equal("Europe/Paris")))
			g.Expect(cj.Spec.Suspend).To(HaveValue(BeTrue()))
			g.Expect(cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args).To(Equal([]string{"Good morning"}))
		})
		testenv.ExpectCondition(ctx, k8sClient, s, seedv1alpha1.ScheduledEchoSuspended, metav1.ConditionTrue, reasonSuspended)
		testenv.ExpectEvent(ctx, k8sClient, s, "ScheduledEcho", "Updated", "CronJob")
	})

	It("puts back a CronJob that someone edited or deleted", func(ctx SpecContext) {
		s := create(ctx, "tick")
		testenv.ExpectCondition(ctx, k8sClient, s, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonScheduled)

		testenv.Update(ctx, k8sClient, cronJobOf(ctx, s), func(cj *batchv1.CronJob) {
			cj.Spec.Schedule = "* * * * *"
			cj.Spec.ConcurrencyPolicy = batchv1.AllowConcurrent
			cj.Spec.StartingDeadlineSeconds = ptr.To[int64](5)
		})
		// kubectl set env cronjob/tick FOREIGN=1
		testenv.EditAs(ctx, k8sClient, cronJobOf(ctx, s), "kubectl-set",
			`{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"echo","env":[{"name":"FOREIGN","value":"1"}]}]}}}}}}`)
		expectCronJob(ctx, s, func(g Gomega, cj *batchv1.CronJob) {
			g.Expect(cj.Spec.Schedule).To(Equal("*/5 * * * *"))
			g.Expect(cj.Spec.ConcurrencyPolicy).To(Equal(batchv1.ForbidConcurrent))
			g.Expect(cj.Spec.StartingDeadlineSeconds).To(BeNil(), "a field the spec does not set is removed too")
			g.Expect(cj.Spec.JobTemplate.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Env", BeEmpty())))
		})
		testenv.ExpectEvent(ctx, k8sClient, s, "ScheduledEcho", "Repaired", "CronJob")

		old := cronJobOf(ctx, s)
		Expect(k8sClient.Delete(ctx, old, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
		expectCronJob(ctx, s, func(g Gomega, cj *batchv1.CronJob) { g.Expect(cj.UID).NotTo(Equal(old.UID)) })
		testenv.ExpectEvent(ctx, k8sClient, s, "ScheduledEcho", "Recreated", "CronJob")
	})

	It("makes nothing and writes nothing once its namespace is being deleted", func(ctx SpecContext) {
		s := create(ctx, "tick")
		testenv.ExpectCondition(ctx, k8sClient, s, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonScheduled)
		testenv.NamespaceTerminating{
			Owner: s, Kind: "CronJob",
			Remove: func() {
				Expect(k8sClient.Delete(ctx, cronJobOf(ctx, s), client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
			},
		}.Expect(ctx, k8sClient)
	})

	It("reports the runs the CronJob reports", func(ctx SpecContext) {
		s := create(ctx, "tick")
		scheduled, succeeded := metav1.Now(), metav1.Now()
		// Plays the CronJob controller, which envtest does not run.
		Eventually(ctx, func(g Gomega) {
			cj := cronJobOf(ctx, s)
			cj.Status = batchv1.CronJobStatus{
				LastScheduleTime: &scheduled, LastSuccessfulTime: &succeeded,
				Active: []corev1.ObjectReference{{Kind: "Job", Namespace: namespace, Name: "tick-29400000"}},
			}
			g.Expect(k8sClient.Status().Update(ctx, cj)).To(Succeed())
		}).Should(Succeed())

		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.Active).To(Equal([]string{"tick-29400000"}))
			g.Expect(s.Status.LastScheduleTime).NotTo(BeNil())
			g.Expect(s.Status.LastSuccessfulTime).NotTo(BeNil())
		}).Should(Succeed())
	})

	It("reports a time zone that Kubernetes does not know, from the CronJob's validation", func(ctx SpecContext) {
		s := create(ctx, "tick", func(s *seedv1alpha1.ScheduledEcho) { s.Spec.TimeZone = ptr.To("Mars/Olympus_Mons") })

		testenv.ExpectCondition(ctx, k8sClient, s, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed)
		Expect(s.Status.Conditions).To(ContainElement(HaveField("Message", ContainSubstring("Mars/Olympus_Mons"))))
		testenv.ExpectEvent(ctx, k8sClient, s, "ScheduledEcho", "ApplyFailed", "unknown time zone")
	})

	// The CRD's rules stand in for the parser the CronJob API uses, so that
	// a bad schedule is refused when the ScheduledEcho is applied, not found
	// later in a failing reconcile. These schedules are checked against both.
	DescribeTable("accepts exactly the schedules the CronJob API accepts",
		func(ctx SpecContext, schedule string) {
			cj := &batchv1.CronJob{
				ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: namespace},
				Spec: batchv1.CronJobSpec{
					Schedule: schedule,
					JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever,
						Containers:    []corev1.Container{{Name: "probe", Image: "busybox"}},
					}}}},
				},
			}
			cronJobErr := k8sClient.Create(ctx, cj, client.DryRunAll)
			echoErr := k8sClient.Create(ctx, scheduledEcho("probe", func(s *seedv1alpha1.ScheduledEcho) { s.Spec.Schedule = seedv1alpha1.CronSchedule(schedule) }), client.DryRunAll)
			if cronJobErr == nil {
				Expect(echoErr).NotTo(HaveOccurred(), "the CronJob API accepts %q", schedule)
			} else {
				Expect(echoErr).To(HaveOccurred(), "the CronJob API refuses %q: %v", schedule, cronJobErr)
			}
		},
		Entry(nil, "* * * * *"),
		Entry(nil, "*/15 * * * *"),
		Entry(nil, "0 9 * * MON-FRI"),
		Entry(nil, "0 9 * * mon,wed,fri"),
		Entry(nil, "30 2 1,15 * *"),
		Entry(nil, "0 0 1 JAN *"),
		Entry(nil, "0 0 1 jan-mar/2 *"),
		Entry(nil, "5-10/2 0-23 1-31 1-12 0-6"),
		Entry(nil, "0 0 ? * *"),
		Entry(nil, "00 09 * * *"),
		Entry(nil, "@hourly"),
		Entry(nil, "@daily"),
		Entry(nil, "@every 1h30m"),
		Entry(nil, "60 * * * *"),
		Entry(nil, "* 24 * * *"),
		Entry(nil, "* * 0 * *"),
		Entry(nil, "* * 32 * *"),
		Entry(nil, "* * * 13 *"),
		Entry(nil, "* * * * 7"),
		Entry(nil, "* * * * funday"),
		Entry(nil, "*/0 * * * *"),
		Entry(nil, "* * * *"),
		Entry(nil, "* * * * * *"),
		Entry(nil, "TZ=UTC * * * * *"),
		Entry(nil, "CRON_TZ=UTC * * * * *"),
		Entry(nil, "@fortnightly"),
		Entry(nil, "every minute"),
	)
})
