package immortalcontainer

import (
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/cached/cachedtest"
)

// podOf is the pod the operator started for newImmortalContainer(), in the
// given phase, changed by mutate as the kubelet would.
func podOf(phase corev1.PodPhase, mutate ...func(*corev1.Pod)) *corev1.Pod {
	desired := desiredPod(newImmortalContainer())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: *desired.Name, Namespace: *desired.Namespace, UID: "pod-uid-1",
			Annotations:       desired.Annotations,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
		},
		Status: corev1.PodStatus{Phase: phase},
	}
	for _, m := range mutate {
		m(pod)
	}
	return pod
}

func withReady(status corev1.ConditionStatus) func(*corev1.Pod) {
	return func(pod *corev1.Pod) {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: status})
	}
}

func TestComputeStatus(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC)
	// Two starts 10 seconds apart, the last 5 seconds ago: the next start
	// waits 5 seconds more.
	quickStarts := func(ic *seedv1alpha1.ImmortalContainer) {
		ic.Status.StartTimes = []metav1.Time{metav1.NewTime(now.Add(-15 * time.Second)), metav1.NewTime(now.Add(-5 * time.Second))}
	}
	// One start long ago: a replacement may start now.
	longAgo := func(ic *seedv1alpha1.ImmortalContainer) {
		ic.Status.StartTimes = []metav1.Time{metav1.NewTime(now.Add(-time.Hour))}
	}

	tests := []struct {
		name           string
		ic             *seedv1alpha1.ImmortalContainer
		pod            *corev1.Pod
		replacing      bool
		stepErr        error
		wantReady      metav1.ConditionStatus
		wantReason     string
		wantMessage    string
		wantCurrentPod string
		wantNextStart  *time.Time
	}{
		{
			name:           "the step failed",
			ic:             newImmortalContainer(),
			pod:            podOf(corev1.PodRunning, withReady(corev1.ConditionTrue)),
			stepErr:        errors.New(`deleting pod app-immortalpod: pods "app-immortalpod" is forbidden`),
			wantReady:      metav1.ConditionFalse,
			wantReason:     seedv1alpha1.ReasonReconcileFailed,
			wantMessage:    `deleting pod app-immortalpod: pods "app-immortalpod" is forbidden`,
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:          "no pod, backing off",
			ic:            newImmortalContainer(quickStarts),
			wantReady:     metav1.ConditionFalse,
			wantReason:    reasonBackingOff,
			wantMessage:   "the next one starts at 2026-03-01T12:00:35Z",
			wantNextStart: new(now.Add(5 * time.Second)),
		},
		{
			name:        "no pod yet",
			ic:          newImmortalContainer(),
			wantReady:   metav1.ConditionFalse,
			wantReason:  reasonStarting,
			wantMessage: "Starting a pod",
		},
		{
			name:        "no pod, and the back-off is over",
			ic:          newImmortalContainer(longAgo),
			wantReady:   metav1.ConditionFalse,
			wantReason:  reasonStarting,
			wantMessage: "Starting a pod",
		},
		{
			name: "the pod is terminating",
			ic:   newImmortalContainer(),
			pod: podOf(corev1.PodRunning, withReady(corev1.ConditionTrue), func(pod *corev1.Pod) {
				pod.DeletionTimestamp = &metav1.Time{Time: now}
			}),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodTerminating,
			wantMessage:    "Waiting for pod app-immortalpod to terminate",
			wantCurrentPod: "app-immortalpod",
		},
		{
			name: "the pod it replaces is terminating",
			ic:   newImmortalContainer(),
			pod: podOf(corev1.PodFailed, func(pod *corev1.Pod) {
				pod.DeletionTimestamp = &metav1.Time{Time: now}
			}),
			replacing:      true,
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodReplacing,
			wantMessage:    "Waiting for pod app-immortalpod to terminate",
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:           "the pod succeeded",
			ic:             newImmortalContainer(),
			pod:            podOf(corev1.PodSucceeded),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodReplacing,
			wantMessage:    "Pod app-immortalpod ended (Succeeded); replacing it",
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:           "the pod failed",
			ic:             newImmortalContainer(quickStarts),
			pod:            podOf(corev1.PodFailed),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodReplacing,
			wantMessage:    "Pod app-immortalpod ended (Failed); replacing it",
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:           "the pod is not scheduled yet",
			ic:             newImmortalContainer(),
			pod:            podOf(""),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodPending,
			wantMessage:    "Pod app-immortalpod is Pending",
			wantCurrentPod: "app-immortalpod",
		},
		{
			name: "the image cannot be pulled",
			ic:   newImmortalContainer(),
			pod: podOf(corev1.PodPending, func(pod *corev1.Pod) {
				pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
					Name: containerName,
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
						Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.example.com/app:1"`,
					}},
				}}
			}),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodPending,
			wantMessage:    `Pod app-immortalpod is Pending: ImagePullBackOff: Back-off pulling image "registry.example.com/app:1"`,
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:           "running but not ready",
			ic:             newImmortalContainer(),
			pod:            podOf(corev1.PodRunning, withReady(corev1.ConditionFalse)),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodNotReady,
			wantMessage:    "Pod app-immortalpod is running but not ready",
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:           "running, no Ready condition reported yet",
			ic:             newImmortalContainer(),
			pod:            podOf(corev1.PodRunning),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodNotReady,
			wantCurrentPod: "app-immortalpod",
		},
		{
			name:           "running and ready",
			ic:             newImmortalContainer(quickStarts),
			pod:            podOf(corev1.PodRunning, withReady(corev1.ConditionTrue)),
			wantReady:      metav1.ConditionTrue,
			wantReason:     reasonPodReady,
			wantMessage:    "Pod app-immortalpod is running and ready",
			wantCurrentPod: "app-immortalpod",
		},
		{
			// Right after a spec change the reconcile has deleted the pod, but
			// still holds it as it was: a user waiting for Ready must not take
			// the old pod for the new spec.
			name: "running and ready, but from an earlier spec",
			ic: newImmortalContainer(func(ic *seedv1alpha1.ImmortalContainer) {
				ic.Spec.Image = "registry.example.com/app:2"
			}),
			pod:            podOf(corev1.PodRunning, withReady(corev1.ConditionTrue)),
			wantReady:      metav1.ConditionFalse,
			wantReason:     reasonPodReplacing,
			wantMessage:    "Pod app-immortalpod runs an earlier spec; replacing it",
			wantCurrentPod: "app-immortalpod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			tt.ic.Generation = 7
			// What an earlier reconcile left must not survive this one.
			tt.ic.Status.CurrentPod = "stale"
			tt.ic.Status.NextStartTime = &metav1.Time{Time: now.Add(time.Hour)}

			pod := tt.pod
			if pod != nil {
				pod = applytest.Applied(t, desiredPod(tt.ic), pod)
			}
			fromCache := tt.ic.DeepCopy()
			computeStatus(tt.ic, pod, now, tt.replacing, tt.stepErr)
			if pod != nil {
				pod = cachedtest.AsCached(t, Owned, pod)
			}
			computeStatus(fromCache, pod, now, tt.replacing, tt.stepErr)
			cachedtest.ExpectSameStatus(t, fromCache, tt.ic)

			st := tt.ic.Status
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(7))
			g.Expect(st.CurrentPod).To(Equal(tt.wantCurrentPod))
			if tt.wantNextStart == nil {
				g.Expect(st.NextStartTime).To(BeNil())
			} else {
				g.Expect(st.NextStartTime).NotTo(BeNil())
				g.Expect(st.NextStartTime.Time).To(BeTemporally("==", *tt.wantNextStart))
			}
			g.Expect(st.Conditions).To(HaveLen(1))
			ready := meta.FindStatusCondition(st.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(tt.wantReady), ready.Message)
			g.Expect(ready.Reason).To(Equal(tt.wantReason), ready.Message)
			g.Expect(ready.Message).To(ContainSubstring(tt.wantMessage))
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(7))
		})
	}
}

func TestRecordStart(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	podStarted := func(uid string, at time.Time) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), CreationTimestamp: metav1.NewTime(at)}}
	}

	t.Run("counts a new pod once, however often it is seen", func(t *testing.T) {
		g := NewWithT(t)
		ic := newImmortalContainer()

		first := podStarted("uid-a", t0)
		recordStart(ic, first)
		recordStart(ic, first)
		g.Expect(ic.Status.PodUID).To(Equal("uid-a"))
		g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(1))
		g.Expect(ic.Status.StartTimes).To(Equal([]metav1.Time{metav1.NewTime(t0)}))

		// Same name, new UID: a new pod.
		second := podStarted("uid-b", t0.Add(time.Minute))
		recordStart(ic, second)
		recordStart(ic, second)
		g.Expect(ic.Status.PodUID).To(Equal("uid-b"))
		g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(2))
		g.Expect(ic.Status.StartTimes).To(Equal([]metav1.Time{metav1.NewTime(t0), metav1.NewTime(t0.Add(time.Minute))}))
	})

	t.Run("keeps the last start times and counts them all", func(t *testing.T) {
		g := NewWithT(t)
		ic := newImmortalContainer()
		const total = seedv1alpha1.MaxStartTimes + 7
		for i := range total {
			recordStart(ic, podStarted(fmt.Sprintf("uid-%d", i), t0.Add(time.Duration(i)*time.Minute)))
		}
		g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(total))
		g.Expect(ic.Status.StartTimes).To(HaveLen(seedv1alpha1.MaxStartTimes))
		g.Expect(ic.Status.StartTimes[0].Time).To(BeTemporally("==", t0.Add(7*time.Minute)), "the oldest are dropped")
		g.Expect(ic.Status.StartTimes[seedv1alpha1.MaxStartTimes-1].Time).To(BeTemporally("==", t0.Add((total-1)*time.Minute)))
	})

	t.Run("a pod whose count a lost status write dropped is counted when next seen", func(t *testing.T) {
		g := NewWithT(t)
		ic := newImmortalContainer(func(ic *seedv1alpha1.ImmortalContainer) {
			ic.Status.PodUID = "uid-a"
			ic.Status.PodsStarted = 4
			ic.Status.StartTimes = []metav1.Time{metav1.NewTime(t0)}
		})
		recordStart(ic, podStarted("uid-b", t0.Add(time.Minute)))
		g.Expect(ic.Status.PodsStarted).To(BeEquivalentTo(5))
		g.Expect(ic.Status.StartTimes).To(HaveLen(2))
	})
}
