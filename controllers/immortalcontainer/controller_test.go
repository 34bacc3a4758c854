package immortalcontainer

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

const (
	image    = "registry.example.com/app:1"
	holdPods = "test.example.com/hold"
)

var _ = Describe("ImmortalContainer controller", func() {
	var namespace string

	BeforeEach(func(ctx SpecContext) {
		namespace = env.Namespace(ctx, "immortal")
	})

	// create makes an ImmortalContainer as a user would, changed by mutate,
	// and returns it as stored.
	create := func(ctx SpecContext, name string, mutate ...func(*seedv1alpha1.ImmortalContainer)) *seedv1alpha1.ImmortalContainer {
		ic := &seedv1alpha1.ImmortalContainer{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec:       seedv1alpha1.ImmortalContainerSpec{Image: image},
		}
		for _, m := range mutate {
			m(ic)
		}
		Expect(k8sClient.Create(ctx, ic)).To(Succeed())
		return ic
	}
	key := func(name string) types.NamespacedName {
		return types.NamespacedName{Namespace: namespace, Name: name}
	}
	podKey := func(name string) types.NamespacedName { return key(name + "-immortalpod") }
	immortal := func(ctx SpecContext, g Gomega, name string) *seedv1alpha1.ImmortalContainer {
		ic := &seedv1alpha1.ImmortalContainer{}
		g.Expect(k8sClient.Get(ctx, key(name), ic)).To(Succeed())
		return ic
	}
	// podAfter waits for a live pod of the ImmortalContainer other than the
	// one with the given UID ("" for the first pod).
	podAfter := func(ctx SpecContext, name string, previous types.UID) *corev1.Pod {
		pod := &corev1.Pod{}
		Eventually(ctx, func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, podKey(name), pod)).To(Succeed())
			g.Expect(pod.UID).NotTo(Equal(previous), "still the earlier pod")
			g.Expect(pod.DeletionTimestamp).To(BeNil(), "a terminating pod")
		}).Should(Succeed())
		return pod
	}
	expectNoPod := func(ctx SpecContext, name string) {
		err := k8sClient.Get(ctx, podKey(name), &corev1.Pod{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "expected no pod, got %v", err)
	}
	// setPodStatus plays the kubelet, which envtest does not run.
	setPodStatus := func(ctx SpecContext, name string, mutate func(*corev1.PodStatus)) {
		Eventually(ctx, func(g Gomega) {
			pod := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, podKey(name), pod)).To(Succeed())
			mutate(&pod.Status)
			g.Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		}).Should(Succeed())
	}
	running := func(ready corev1.ConditionStatus) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) {
			s.Phase = corev1.PodRunning
			s.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Now()}}
		}
	}
	ended := func(phase corev1.PodPhase) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) { s.Phase = phase }
	}
	// expectStarts waits until the status has counted the given pod as the
	// n-th start.
	expectStarts := func(ctx SpecContext, name string, pod *corev1.Pod, n int) *seedv1alpha1.ImmortalContainer {
		var ic *seedv1alpha1.ImmortalContainer
		Eventually(ctx, func(g Gomega) {
			ic = immortal(ctx, g, name)
			g.Expect(ic.Status.PodUID).To(BeEquivalentTo(pod.UID))
			g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(n))
			g.Expect(ic.Status.StartTimes).To(HaveLen(n))
			g.Expect(ic.Status.StartTimes[n-1]).To(Equal(pod.CreationTimestamp))
		}).Should(Succeed())
		return ic
	}
	expectReady := func(ctx SpecContext, name string, status metav1.ConditionStatus, reason string) {
		ic := &seedv1alpha1.ImmortalContainer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectCondition(ctx, k8sClient, ic, seedv1alpha1.ConditionReady, status, reason)
		Expect(ic.Status.ObservedGeneration).To(Equal(ic.Generation))
	}
	expectEvent := func(ctx SpecContext, name, reason, note string) {
		ic := &seedv1alpha1.ImmortalContainer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		testenv.ExpectEvent(ctx, k8sClient, ic, "ImmortalContainer", reason, note)
	}
	// eventTypes are the types (Normal, Warning) of the events with a reason.
	eventTypes := func(ctx SpecContext, g Gomega, reason string) []string {
		events := &eventsv1.EventList{}
		g.Expect(k8sClient.List(ctx, events, client.InNamespace(namespace))).To(Succeed())
		var found []string
		for _, e := range events.Items {
			if e.Reason == reason {
				found = append(found, e.Type)
			}
		}
		return found
	}
	// cacheCaughtUp waits until the manager's cache, which the reconcilers
	// read, holds the ImmortalContainer as the API server does and
	// no longer holds a deleted pod.
	cacheCaughtUp := func(ctx SpecContext, name string, podGone bool) *seedv1alpha1.ImmortalContainer {
		cached := &seedv1alpha1.ImmortalContainer{}
		Eventually(ctx, func(g Gomega) {
			stored := immortal(ctx, g, name)
			g.Expect(reconciler.Get(ctx, key(name), cached)).To(Succeed())
			g.Expect(cached.ResourceVersion).To(Equal(stored.ResourceVersion))
			if podGone {
				g.Expect(apierrors.IsNotFound(reconciler.Get(ctx, podKey(name), &corev1.Pod{}))).To(BeTrue())
			}
		}).Should(Succeed())
		return cached
	}

	It("starts a pod owned by the ImmortalContainer, in its namespace, and reports it Ready once it is", func(ctx SpecContext) {
		ic := create(ctx, "app", func(ic *seedv1alpha1.ImmortalContainer) {
			ic.Spec.Command = []string{"/app"}
			ic.Spec.Args = []string{"--serve"}
			ic.Spec.Env = []seedv1alpha1.EnvVar{{Name: "GREETING", Value: "hello"}}
			ic.Spec.RunAsUser = ptr.To[int64](1000)
		})

		pod := podAfter(ctx, "app", "")
		Expect(apply.UpToDate(desiredPod(ic), pod)).To(BeTrue(), "the next reconcile finds the pod as applied, and sends nothing")
		cached := &corev1.Pod{}
		testenv.ExpectCachedUpToDate(ctx, reconciler, desiredPod(ic), cached)
		Expect(cached.Spec).To(BeZero(), "the cache keeps the digest of the pod's spec, not the spec")
		Expect(pod.Name).To(Equal("app-immortalpod"))
		Expect(pod.Namespace).To(Equal(namespace))
		Expect(pod.OwnerReferences).To(ConsistOf(And(
			HaveField("UID", ic.UID), HaveField("Kind", "ImmortalContainer"), HaveField("Name", "app"),
			HaveField("Controller", HaveValue(BeTrue())), HaveField("BlockOwnerDeletion", HaveValue(BeTrue())),
		)))
		Expect(pod.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
		Expect(pod.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", "app"))
		Expect(pod.Spec.RestartPolicy).To(Equal(corev1.RestartPolicyNever))
		Expect(pod.Spec.SecurityContext.RunAsUser).To(HaveValue(BeEquivalentTo(1000)))
		Expect(pod.Spec.Containers).To(ConsistOf(And(
			HaveField("Image", image),
			HaveField("Command", Equal([]string{"/app"})),
			HaveField("Args", Equal([]string{"--serve"})),
			HaveField("Env", ConsistOf(corev1.EnvVar{Name: "GREETING", Value: "hello"})),
		)))

		status := expectStarts(ctx, "app", pod, 1).Status
		Expect(status.CurrentPod).To(Equal("app-immortalpod"))
		Expect(status.NextStartTime).To(BeNil())
		expectEvent(ctx, "app", "Created", "Pod")
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)

		By("the pod running but not ready yet")
		setPodStatus(ctx, "app", running(corev1.ConditionFalse))
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodNotReady)

		By("the pod ready")
		setPodStatus(ctx, "app", running(corev1.ConditionTrue))
		expectReady(ctx, "app", metav1.ConditionTrue, reasonPodReady)
		Expect(immortal(ctx, Default, "app").Status.PodsStarted).To(BeEquivalentTo(1), "a pod's progress is not a new start")
	})

	It("records a pod made after a failed first try as created, not as a repair", func(ctx SpecContext) {
		none := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}
		noPods := &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Name: "no-pods", Namespace: namespace},
			Spec:       corev1.ResourceQuotaSpec{Hard: none},
		}
		Expect(k8sClient.Create(ctx, noPods)).To(Succeed())
		// The quota controller, which envtest does not run, would count the
		// pods; until the status has, admission enforces nothing.
		noPods.Status = corev1.ResourceQuotaStatus{Hard: none, Used: none}
		Expect(k8sClient.Status().Update(ctx, noPods)).To(Succeed())
		// A pod as the API server would admit it now, without making one.
		probe := func() error {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: namespace},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: image}}},
			}
			return k8sClient.Create(ctx, pod, client.DryRunAll)
		}
		Eventually(ctx, probe).Should(MatchError(ContainSubstring("exceeded quota: no-pods")))
		ic := create(ctx, "app")
		expectReady(ctx, "app", metav1.ConditionFalse, seedv1alpha1.ReasonReconcileFailed)

		// The quota admission keeps a quota it looked up for 30 s.
		Expect(k8sClient.Delete(ctx, noPods)).To(Succeed())
		Eventually(ctx, probe).WithTimeout(time.Minute).Should(Succeed())
		expectStarts(ctx, "app", podAfter(ctx, "app", ""), 1)
		expectEvent(ctx, "app", apply.ReasonCreated, "Pod")
		Expect(testenv.EventReasons(ctx, k8sClient, ic)).NotTo(ContainElement(apply.ReasonRecreated))
	})

	DescribeTable("starts a deleted pod again",
		func(ctx SpecContext, opts ...client.DeleteOption) {
			create(ctx, "app")
			first := podAfter(ctx, "app", "")
			expectStarts(ctx, "app", first, 1)
			setPodStatus(ctx, "app", running(corev1.ConditionTrue))
			expectReady(ctx, "app", metav1.ConditionTrue, reasonPodReady)

			Expect(k8sClient.Delete(ctx, first, opts...)).To(Succeed())
			// Without a kubelet to wait for, the API server removes an
			// unscheduled pod at once: whatever holds the name now is new.
			current := &corev1.Pod{}
			if err := k8sClient.Get(ctx, podKey("app"), current); err == nil {
				Expect(current.UID).NotTo(Equal(first.UID))
			} else {
				Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
			}

			second := podAfter(ctx, "app", first.UID)
			status := expectStarts(ctx, "app", second, 2).Status
			Expect(status.StartTimes[0]).To(Equal(first.CreationTimestamp))
			Expect(status.CurrentPod).To(Equal("app-immortalpod"))
			expectEvent(ctx, "app", "Recreated", "Pod")
			expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)
		},
		Entry("deleted as kubectl does"),
		Entry("deleted at once", client.GracePeriodSeconds(0)),
	)

	It("replaces a pod whose spec someone else changed, and leaves one being debugged", func(ctx SpecContext) {
		create(ctx, "app")
		first := podAfter(ctx, "app", "")
		expectStarts(ctx, "app", first, 1)
		setPodStatus(ctx, "app", running(corev1.ConditionTrue))
		expectReady(ctx, "app", metav1.ConditionTrue, reasonPodReady)

		By("another tool applying the image the operator set, which shares the field and changes nothing")
		container := first.Spec.Containers[0]
		Expect(k8sClient.Apply(ctx, corev1ac.Pod(first.Name, first.Namespace).WithSpec(corev1ac.PodSpec().WithContainers(
			corev1ac.Container().WithName(container.Name).WithImage(container.Image))), client.FieldOwner("gitops"))).To(Succeed())
		Consistently(ctx, func(g Gomega) {
			pod := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, podKey("app"), pod)).To(Succeed())
			g.Expect(pod.UID).To(Equal(first.UID))
			g.Expect(pod.ManagedFields).To(ContainElement(HaveField("Manager", "gitops")), "the field is shared")
		}).WithTimeout(2 * time.Second).Should(Succeed())

		By("kubectl debug adding a debug container")
		Eventually(ctx, func(g Gomega) {
			pod := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, podKey("app"), pod)).To(Succeed())
			pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "debugger", Image: image, TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent,
			}}}
			g.Expect(k8sClient.SubResource("ephemeralcontainers").Update(ctx, pod, client.FieldOwner("kubectl-debug"))).To(Succeed())
		}).Should(Succeed())
		Consistently(ctx, func(g Gomega) {
			pod := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, podKey("app"), pod)).To(Succeed())
			g.Expect(pod.UID).To(Equal(first.UID))
		}).WithTimeout(2 * time.Second).Should(Succeed())

		By("kubectl patch adding a toleration, which a pod can gain but never lose")
		testenv.EditAs(ctx, k8sClient, first, "kubectl-patch",
			`{"spec":{"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]}}`)
		second := podAfter(ctx, "app", first.UID)
		Expect(second.Spec.Tolerations).NotTo(ContainElement(HaveField("Key", "dedicated")))
		expectStarts(ctx, "app", second, 2)
		expectEvent(ctx, "app", "Repaired", "Replacing pod app-immortalpod, whose spec kubectl-patch changed")
	})

	DescribeTable("replaces a pod that ends, as its own decision rather than a repair",
		func(ctx SpecContext, phase corev1.PodPhase, eventType string) {
			ic := create(ctx, "app")
			first := podAfter(ctx, "app", "")
			expectStarts(ctx, "app", first, 1)
			setPodStatus(ctx, "app", running(corev1.ConditionTrue))
			expectReady(ctx, "app", metav1.ConditionTrue, reasonPodReady)
			repairs := testenv.Counted("seed_drift_repairs_total", map[string]string{"kind": "Pod"})

			setPodStatus(ctx, "app", ended(phase))

			second := podAfter(ctx, "app", first.UID)
			Expect(second.Status.Phase).To(Or(BeEmpty(), Equal(corev1.PodPending)), "a new pod, not the ended one")
			expectStarts(ctx, "app", second, 2)
			expectEvent(ctx, "app", reasonPodEnded, "Pod app-immortalpod ended ("+string(phase)+"); starting a new one")
			Expect(eventTypes(ctx, Default, reasonPodEnded)).To(ConsistOf(eventType))
			expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)
			Eventually(ctx, func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, ic, apply.ReasonCreated) }).
				Should(BeEquivalentTo(2), "the first pod and its replacement")
			Expect(testenv.EventReasons(ctx, k8sClient, ic)).NotTo(ContainElement(apply.ReasonRecreated))
			Expect(testenv.Counted("seed_drift_repairs_total", map[string]string{"kind": "Pod"})).To(Equal(repairs), "drift repairs counted")
		},
		Entry("succeeded", corev1.PodSucceeded, corev1.EventTypeNormal),
		Entry("failed", corev1.PodFailed, corev1.EventTypeWarning),
	)

	It("is still replacing a pod that ended while it terminates, and starts the next as its own decision", func(ctx SpecContext) {
		ic := create(ctx, "app")
		first := podAfter(ctx, "app", "")
		expectStarts(ctx, "app", first, 1)
		testenv.Update(ctx, k8sClient, first, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdPods) })

		setPodStatus(ctx, "app", ended(corev1.PodFailed))
		Eventually(ctx, func(g Gomega) *metav1.Time {
			held := &corev1.Pod{}
			g.Expect(k8sClient.Get(ctx, podKey("app"), held)).To(Succeed())
			return held.DeletionTimestamp
		}).ShouldNot(BeNil(), "deleted by the operator, held by a finalizer")
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodReplacing)

		testenv.Update(ctx, k8sClient, first, func(p *corev1.Pod) { p.Finalizers = nil })
		expectStarts(ctx, "app", podAfter(ctx, "app", first.UID), 2)
		Eventually(ctx, func(g Gomega) int32 { return testenv.EventCount(ctx, g, k8sClient, ic, apply.ReasonCreated) }).
			Should(BeEquivalentTo(2))
		Expect(testenv.EventReasons(ctx, k8sClient, ic)).NotTo(ContainElement(apply.ReasonRecreated))
	})

	It("waits longer before each new pod while pods keep ending soon after they start", func(ctx SpecContext) {
		create(ctx, "app")
		first := podAfter(ctx, "app", "")
		expectStarts(ctx, "app", first, 1)

		By("the first replacement starting at once")
		setPodStatus(ctx, "app", ended(corev1.PodFailed))
		second := podAfter(ctx, "app", first.UID)
		expectStarts(ctx, "app", second, 2)

		By("the second waiting")
		// The back-off is reckoned from the start times the manager's cache
		// holds: they must include the second pod's.
		cacheCaughtUp(ctx, "app", false)
		setPodStatus(ctx, "app", ended(corev1.PodFailed))
		expectReady(ctx, "app", metav1.ConditionFalse, reasonBackingOff)
		status := immortal(ctx, Default, "app").Status
		Expect(status.NextStartTime).NotTo(BeNil())
		next := status.NextStartTime.Time
		Expect(next).To(BeTemporally("==", second.CreationTimestamp.Add(backoffBase)))
		Expect(next).To(BeTemporally(">", time.Now()), "the wait is not over yet")
		Expect(status.CurrentPod).To(BeEmpty())
		Expect(status.PodsStarted).To(BeEquivalentTo(2))
		expectEvent(ctx, "app", reasonBackingOff, next.UTC().Format(time.RFC3339))
		Consistently(ctx, func() error {
			return k8sClient.Get(ctx, podKey("app"), &corev1.Pod{})
		}).WithTimeout(2 * time.Second).Should(Satisfy(apierrors.IsNotFound))

		By("starting it once the wait is over")
		third := podAfter(ctx, "app", second.UID)
		Expect(third.CreationTimestamp.Time).To(BeTemporally(">=", next))
		expectStarts(ctx, "app", third, 3)
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)
		ic := immortal(ctx, Default, "app")
		Expect(ic.Status.NextStartTime).To(BeNil())
		Expect(testenv.EventReasons(ctx, k8sClient, ic)).NotTo(ContainElement(apply.ReasonRecreated), "a pod started after the back-off is no repair")
	})

	It("caps the wait, and starts the pod when the clock reaches the next start time", func(ctx SpecContext) {
		create(ctx, "app")
		first := podAfter(ctx, "app", "")
		expectStarts(ctx, "app", first, 1)
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)

		// Seven starts 10 seconds apart: the wait would be 320 seconds but
		// for the cap.
		started := first.CreationTimestamp.Time
		Eventually(ctx, func(g Gomega) {
			ic := immortal(ctx, g, "app")
			ic.Status.StartTimes = nil
			for i := 6; i >= 0; i-- {
				ic.Status.StartTimes = append(ic.Status.StartTimes, metav1.NewTime(started.Add(-time.Duration(i)*10*time.Second)))
			}
			ic.Status.PodsStarted = 7
			g.Expect(k8sClient.Status().Update(ctx, ic)).To(Succeed())
		}).Should(Succeed())
		cacheCaughtUp(ctx, "app", false)
		setPodStatus(ctx, "app", ended(corev1.PodFailed))

		expectReady(ctx, "app", metav1.ConditionFalse, reasonBackingOff)
		next := started.Add(backoffCap)
		Expect(immortal(ctx, Default, "app").Status.NextStartTime).To(HaveField("Time", BeTemporally("==", next)))
		Consistently(ctx, func() error {
			return k8sClient.Get(ctx, podKey("app"), &corev1.Pod{})
		}).WithTimeout(time.Second).Should(Satisfy(apierrors.IsNotFound))

		// A reconciler of its own, whose clock the spec sets, beside the
		// manager's, which still waits by the real clock.
		var now time.Time
		clocked := &Reconciler{Client: env.Manager.GetClient(), Applier: env.Applier, Now: func() time.Time { return now }}
		cacheCaughtUp(ctx, "app", true)

		By("a minute before the next start")
		now = next.Add(-time.Minute)
		Expect(clocked.Reconcile(ctx, ctrl.Request{NamespacedName: key("app")})).To(Equal(ctrl.Result{RequeueAfter: time.Minute}))
		expectNoPod(ctx, "app")

		By("at the next start")
		now = next
		Expect(clocked.Reconcile(ctx, ctrl.Request{NamespacedName: key("app")})).To(Equal(ctrl.Result{}))
		second := podAfter(ctx, "app", first.UID)
		ic := expectStarts(ctx, "app", second, 8)
		Expect(ic.Status.NextStartTime).To(BeNil())
	})

	It("replaces the pod when the image changes", func(ctx SpecContext) {
		const newImage = "registry.example.com/app:2"
		create(ctx, "app")
		first := podAfter(ctx, "app", "")
		setPodStatus(ctx, "app", running(corev1.ConditionTrue))
		expectReady(ctx, "app", metav1.ConditionTrue, reasonPodReady)

		ic := &seedv1alpha1.ImmortalContainer{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: namespace}}
		testenv.Update(ctx, k8sClient, ic, func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.Image = newImage })
		Expect(ic.Generation).To(BeEquivalentTo(2))

		second := podAfter(ctx, "app", first.UID)
		Expect(second.Spec.Containers).To(ConsistOf(HaveField("Image", newImage)))
		Expect(second.Annotations[specHashAnnotation]).NotTo(Equal(first.Annotations[specHashAnnotation]))
		expectStarts(ctx, "app", second, 2)
		expectEvent(ctx, "app", reasonSpecChanged, "Replacing pod app-immortalpod to run the new spec")
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)

		setPodStatus(ctx, "app", running(corev1.ConditionTrue))
		expectReady(ctx, "app", metav1.ConditionTrue, reasonPodReady)
	})

	It("waits for a terminating pod to go before starting the next, and leaves it alone meanwhile", func(ctx SpecContext) {
		create(ctx, "app")
		first := podAfter(ctx, "app", "")
		expectStarts(ctx, "app", first, 1)
		testenv.Update(ctx, k8sClient, first, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdPods) })

		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodTerminating)
		// A terminating pod's container exits: the pod ends, but is already
		// going, so it must not be deleted or counted as ended again.
		setPodStatus(ctx, "app", ended(corev1.PodFailed))

		held := &corev1.Pod{}
		Expect(k8sClient.Get(ctx, podKey("app"), held)).To(Succeed())
		Expect(held.DeletionTimestamp).NotTo(BeNil())
		Expect(held.Status.Phase).To(Equal(corev1.PodFailed))
		Consistently(ctx, func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8sClient.List(ctx, pods, client.InNamespace(namespace))).To(Succeed())
			g.Expect(pods.Items).To(ConsistOf(And(
				HaveField("UID", first.UID),
				HaveField("ResourceVersion", held.ResourceVersion), // nobody writes to it
			)))
			ic := immortal(ctx, g, "app")
			g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(1))
			g.Expect(ic.Status.CurrentPod).To(Equal("app-immortalpod"))
			g.Expect(eventTypes(ctx, g, reasonPodEnded)).To(BeEmpty())
		}).WithTimeout(2 * time.Second).Should(Succeed())
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodTerminating)

		By("the pod going")
		testenv.Update(ctx, k8sClient, held, func(p *corev1.Pod) { p.Finalizers = nil })
		second := podAfter(ctx, "app", first.UID)
		expectStarts(ctx, "app", second, 2)
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodPending)
	})

	It("stops trying to start a pod once its namespace is being deleted", func(ctx SpecContext) {
		ic := create(ctx, "app")
		pod := podAfter(ctx, "app", "")
		// The pod's deletion, seen before it is gone, is a status of its
		// own: the pod is held until the namespace is being deleted.
		testenv.Update(ctx, k8sClient, pod, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdPods) })
		Expect(k8sClient.Delete(ctx, pod, client.GracePeriodSeconds(0))).To(Succeed())
		expectReady(ctx, "app", metav1.ConditionFalse, reasonPodTerminating)
		testenv.NamespaceTerminating{
			Owner: ic, Kind: "Pod",
			Remove: func() { testenv.Update(ctx, k8sClient, pod, func(p *corev1.Pod) { p.Finalizers = nil }) },
		}.Expect(ctx, k8sClient)
		expectNoPod(ctx, "app")
	})

	It("counts each pod once, even when the status that counted it was lost", func(ctx SpecContext) {
		create(ctx, "app")
		pod := podAfter(ctx, "app", "")
		expectStarts(ctx, "app", pod, 1)

		By("a status write lost after the pod was started")
		Eventually(ctx, func(g Gomega) {
			ic := immortal(ctx, g, "app")
			ic.Status.PodUID, ic.Status.PodsStarted, ic.Status.StartTimes = "", 0, nil
			g.Expect(k8sClient.Status().Update(ctx, ic)).To(Succeed())
		}).Should(Succeed())
		expectStarts(ctx, "app", pod, 1)

		By("reconciling again and again")
		before := cacheCaughtUp(ctx, "app", false)
		for range 3 {
			Expect(reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: key("app")})).To(Equal(ctrl.Result{}))
		}
		after := expectStarts(ctx, "app", pod, 1)
		Expect(after.ResourceVersion).To(Equal(before.ResourceVersion), "nothing changed, so nothing was written")
		Expect(after.Status.StartTimes).To(Equal([]metav1.Time{pod.CreationTimestamp}))
	})

	It("accepts the longest name it allows", func(ctx SpecContext) {
		name := strings.Repeat("a", 63)
		create(ctx, name)
		pod := podAfter(ctx, name, "")
		Expect(pod.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", name))
	})
})
