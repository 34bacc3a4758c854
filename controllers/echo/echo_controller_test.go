package echo

import (
	"time"

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

var _ = Describe("Echo controller", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "echo")
	})

	create := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.Echo)) *seedv1alpha1.Echo {
		e := &seedv1alpha1.Echo{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec:       seedv1alpha1.EchoSpec{Message: "Hello, world"},
		}
		for _, m := range mutate {
			m(e)
		}
		Expect(k8sClient.Create(ctx, e)).To(Succeed())
		return e
	}
	jobOf := func(ctx SpecContext, e *seedv1alpha1.Echo) *batchv1.Job {
		job := &batchv1.Job{}
		testenv.Get(ctx, k8sClient, client.ObjectKeyFromObject(e), job)
		return job
	}
	// setJobStatus plays the Job controller, which envtest does not run.
	setJobStatus := func(ctx SpecContext, e *seedv1alpha1.Echo, mutate func(*batchv1.JobStatus)) {
		Eventually(ctx, func(g Gomega) {
			job := jobOf(ctx, e)
			mutate(&job.Status)
			g.Expect(k8sClient.Status().Update(ctx, job)).To(Succeed())
		}).Should(Succeed())
	}
	start := func(s *batchv1.JobStatus) {
		s.StartTime = ptr.To(metav1.Now())
		s.Active = 1
		s.Ready = ptr.To[int32](1)
	}
	succeed := func(s *batchv1.JobStatus) {
		now := metav1.Now()
		s.Active, s.Ready, s.Succeeded = 0, ptr.To[int32](0), 1
		s.CompletionTime = &now
		s.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
		}
	}
	fail := func(s *batchv1.JobStatus) {
		now := metav1.Now()
		s.Active, s.Ready, s.Failed = 0, ptr.To[int32](0), 4
		s.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", LastTransitionTime: now},
			{
				Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
				Message: "Job has reached the specified backoff limit", LastTransitionTime: now,
			},
		}
	}
	// deleteJob deletes as kubectl does, in the background: a Job's default
	// is to orphan its pods, which leaves it to the garbage collector, and
	// envtest runs none.
	deleteJob := func(ctx SpecContext, job *batchv1.Job) {
		Expect(k8sClient.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
	}
	// holdAsBefore gives the Job the finalizer releases up to 0.3.1 did.
	holdAsBefore := func(ctx SpecContext, job *batchv1.Job) {
		testenv.Update(ctx, k8sClient, job, func(j *batchv1.Job) { j.Finalizers = append(j.Finalizers, legacyResultFinalizer) })
	}
	// deleteJobAndWait deletes the Job, and waits until nothing holds it.
	deleteJobAndWait := func(ctx SpecContext, job *batchv1.Job) {
		deleteJob(ctx, job)
		Eventually(ctx, func() error {
			return k8sClient.Get(ctx, client.ObjectKeyFromObject(job), &batchv1.Job{})
		}).Should(MatchError(ContainSubstring("not found")))
	}
	expectPhase := func(ctx SpecContext, e *seedv1alpha1.Echo, phase seedv1alpha1.EchoPhase) {
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(e), e)).To(Succeed())
			g.Expect(e.Status.Phase).To(Equal(phase))
		}).Should(Succeed())
	}

	It("runs a Job named after the Echo, in its namespace, that prints the message as written", func(ctx SpecContext) {
		e := create(ctx, "hello", func(e *seedv1alpha1.Echo) { e.Spec.Message = "costs $(PRICE) today" })

		job := jobOf(ctx, e)
		Expect(apply.UpToDate(desiredJob(e), job)).To(BeTrue(), "the next reconcile finds the Job as applied, and sends nothing")
		cached := &batchv1.Job{}
		testenv.ExpectCachedUpToDate(ctx, echoReconciler, desiredJob(e), cached)
		Expect(cached.Spec).To(BeZero(), "the cache keeps the digest of the Job's spec, not the spec")
		Expect(job.OwnerReferences).To(ConsistOf(And(
			HaveField("UID", e.UID), HaveField("Kind", "Echo"), HaveField("Controller", HaveValue(BeTrue())),
		)))
		Expect(*job.Spec.BackoffLimit).To(BeEquivalentTo(3), "the API server defaults backoffLimit to 3")
		pod := job.Spec.Template.Spec
		Expect(pod.Containers).To(ConsistOf(And(
			HaveField("Image", seedv1alpha1.DefaultEchoImage),
			HaveField("Command", []string{"echo"}),
			HaveField("Args", []string{"costs $$(PRICE) today"}),
		)))
		Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
		Expect(pod.RestartPolicy).To(Equal(corev1.RestartPolicyNever))

		testenv.ExpectEvent(ctx, k8sClient, e, "Echo", "Created", "Job")
		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonJobPending)
		Expect(e.Status.JobName).To(Equal("hello"))
		Expect(e.Status.Phase).To(Equal(seedv1alpha1.EchoPending))
	})

	It("follows the Job from Running to Succeeded, and is Ready once the message is printed", func(ctx SpecContext) {
		e := create(ctx, "hello")
		jobOf(ctx, e)

		setJobStatus(ctx, e, start)
		expectPhase(ctx, e, seedv1alpha1.EchoRunning)
		Expect(e.Status.StartTime).NotTo(BeNil())

		setJobStatus(ctx, e, succeed)
		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonSucceeded)
		Expect(e.Status.Phase).To(Equal(seedv1alpha1.EchoSucceeded))
		Expect(e.Status.CompletionTime).NotTo(BeNil())
		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.EchoComplete, metav1.ConditionTrue, "CompletionsReached")
	})

	It("reports a Job that gave up as Failed, and says how to run it again", func(ctx SpecContext) {
		e := create(ctx, "hello")
		jobOf(ctx, e)
		setJobStatus(ctx, e, start)
		setJobStatus(ctx, e, fail)

		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.EchoFailed, metav1.ConditionTrue, "BackoffLimitExceeded")
		Expect(e.Status.Phase).To(Equal(seedv1alpha1.EchoFailedPhase))
		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonJobFailed)
		Expect(e.Status.Conditions).To(ContainElement(HaveField("Message", ContainSubstring("delete this Echo and create it again"))))
	})

	It("runs the Job again when it is deleted before it finished", func(ctx SpecContext) {
		e := create(ctx, "hello")
		job := jobOf(ctx, e)
		setJobStatus(ctx, e, start)
		expectPhase(ctx, e, seedv1alpha1.EchoRunning)

		deleteJob(ctx, job)
		Eventually(ctx, func(g Gomega) {
			g.Expect(jobOf(ctx, e).UID).NotTo(Equal(job.UID))
		}).Should(Succeed())
		testenv.ExpectEvent(ctx, k8sClient, e, "Echo", "Recreated", "Job")
	})

	It("runs nothing and writes nothing once its namespace is being deleted", func(ctx SpecContext) {
		e := create(ctx, "hello")
		job := jobOf(ctx, e)
		setJobStatus(ctx, e, start)
		expectPhase(ctx, e, seedv1alpha1.EchoRunning)
		testenv.NamespaceTerminating{
			Owner: e, Kind: "Job",
			Remove: func() { deleteJob(ctx, job) },
		}.Expect(ctx, k8sClient)
	})

	It("prints once: the Job gets its TTL once the result is recorded, and when it is gone the result stays", func(ctx SpecContext) {
		e := create(ctx, "hello", func(e *seedv1alpha1.Echo) { e.Spec.TTLSecondsAfterFinished = ptr.To[int32](0) })
		job := jobOf(ctx, e)
		Expect(job.Spec.TTLSecondsAfterFinished).To(BeNil(), "no TTL may delete the Job before the operator saw how it ended")
		Expect(job.Finalizers).To(BeEmpty(), "nothing holds the Job's namespace while the operator is gone")
		setJobStatus(ctx, e, start)
		setJobStatus(ctx, e, succeed)

		Eventually(ctx, func(g Gomega) {
			g.Expect(jobOf(ctx, e).Spec.TTLSecondsAfterFinished).To(HaveValue(BeEquivalentTo(0)))
		}).Should(Succeed())
		expectPhase(ctx, e, seedv1alpha1.EchoSucceeded)

		By("deleting the Job, as the TTL controller does")
		deleteJob(ctx, job)
		Consistently(ctx, func(g Gomega) {
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(e), &batchv1.Job{})
			g.Expect(err).To(MatchError(ContainSubstring("not found")))
		}).WithTimeout(2 * time.Second).Should(Succeed())
		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonSucceeded)
		Expect(e.Status.JobName).To(Equal("hello"))
	})

	It("lets a Job that an earlier release held go, once its result is recorded", func(ctx SpecContext) {
		e := create(ctx, "hello")
		job := jobOf(ctx, e)
		holdAsBefore(ctx, job)
		setJobStatus(ctx, e, start)
		setJobStatus(ctx, e, succeed)
		expectPhase(ctx, e, seedv1alpha1.EchoSucceeded)

		deleteJobAndWait(ctx, job)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(e), e)).To(Succeed())
		Expect(e.Status.Phase).To(Equal(seedv1alpha1.EchoSucceeded), "not run again")
	})

	It("lets a Job that an earlier release held go when the Echo is deleted", func(ctx SpecContext) {
		e := create(ctx, "hello")
		job := jobOf(ctx, e)
		holdAsBefore(ctx, job)
		Expect(k8sClient.Delete(ctx, e)).To(Succeed())
		// Plays the garbage collector, which envtest does not run.
		deleteJobAndWait(ctx, job)
	})

	It("puts back what someone changed on the Job", func(ctx SpecContext) {
		e := create(ctx, "hello")
		jobOf(ctx, e)
		testenv.ExpectCondition(ctx, k8sClient, e, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonJobPending)

		testenv.Update(ctx, k8sClient, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: namespace}},
			func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr.To[int32](9) })
		Eventually(ctx, func(g Gomega) {
			g.Expect(*jobOf(ctx, e).Spec.BackoffLimit).To(BeEquivalentTo(3))
		}).Should(Succeed())
		testenv.ExpectEvent(ctx, k8sClient, e, "Echo", "Repaired", "Job")
	})

	It("refuses a change to the spec, and says how to print again", func(ctx SpecContext) {
		e := create(ctx, "hello")
		jobOf(ctx, e)

		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(e), e)).To(Succeed())
			e.Spec.Message = "something else"
			g.Expect(k8sClient.Update(ctx, e)).To(MatchError(ContainSubstring(
				"spec is immutable: an Echo runs once; to print again, delete this Echo and create it again, or create one with another name")))
		}).Should(Succeed())

		By("still allowing its labels to change")
		testenv.Update(ctx, k8sClient, e, func(e *seedv1alpha1.Echo) { e.Labels = map[string]string{"team": "a"} })
	})

})
