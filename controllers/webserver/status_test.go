package webserver

import (
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/cached/cachedtest"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// deploymentWith is a Deployment at generation 2 whose controller reported
// the given status.
func deploymentWith(status appsv1.DeploymentStatus) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", Generation: 2}, Status: status}
}

func TestComputeStatus(t *testing.T) {
	available := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
		Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.",
	}
	progressing := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		Reason: "NewReplicaSetAvailable", Message: "ReplicaSet has successfully progressed.",
	}
	three := func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](3) }

	tests := []struct {
		name            string
		ws              *seedv1alpha1.WebServer
		deployment      *appsv1.Deployment
		pods            []corev1.Pod
		applyErr        error
		wantReady       metav1.ConditionStatus
		wantReason      string
		wantMessage     string
		wantAvailable   metav1.ConditionStatus
		wantReadyCount  int32
		wantReplicasNow int32
	}{
		{
			name:          "apply failed",
			ws:            newWebServer(),
			deployment:    &appsv1.Deployment{},
			applyErr:      errors.New("applying Deployment team-a/web: forbidden"),
			wantReady:     metav1.ConditionFalse,
			wantReason:    seedv1alpha1.ReasonReconcileFailed,
			wantMessage:   "applying Deployment team-a/web: forbidden",
			wantAvailable: metav1.ConditionUnknown,
		},
		{
			name:          "new Deployment not yet seen by its controller",
			ws:            newWebServer(),
			deployment:    deploymentWith(appsv1.DeploymentStatus{}),
			wantReady:     metav1.ConditionFalse,
			wantReason:    reasonAwaitingDeployment,
			wantMessage:   "not yet seen generation 2",
			wantAvailable: metav1.ConditionUnknown,
		},
		{
			name: "rolling out a new image",
			ws:   newWebServer(three),
			deployment: deploymentWith(appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3,
				Conditions: []appsv1.DeploymentCondition{available, progressing},
			}),
			wantReady:       metav1.ConditionFalse,
			wantReason:      reasonRollingOut,
			wantMessage:     "1 of 3 pods run the current template; 4 pods in all, 3 ready",
			wantAvailable:   metav1.ConditionTrue,
			wantReadyCount:  3,
			wantReplicasNow: 4,
		},
		{
			name: "old pods still terminating",
			ws:   newWebServer(three),
			deployment: deploymentWith(appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 4, UpdatedReplicas: 3, ReadyReplicas: 3,
				Conditions: []appsv1.DeploymentCondition{available},
			}),
			wantReady:       metav1.ConditionFalse,
			wantReason:      reasonRollingOut,
			wantAvailable:   metav1.ConditionTrue,
			wantReadyCount:  3,
			wantReplicasNow: 4,
		},
		{
			name: "an old pod still counted ready, though no longer among the replicas",
			ws:   newWebServer(three),
			deployment: deploymentWith(appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 4,
				Conditions: []appsv1.DeploymentCondition{available},
			}),
			wantReady:       metav1.ConditionFalse,
			wantReason:      reasonRollingOut,
			wantAvailable:   metav1.ConditionTrue,
			wantReadyCount:  4,
			wantReplicasNow: 3,
		},
		{
			name: "pods not ready",
			ws:   newWebServer(three),
			deployment: deploymentWith(appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2,
			}),
			wantReady:       metav1.ConditionFalse,
			wantReason:      reasonPodsNotReady,
			wantMessage:     "2 of 3 pods are ready",
			wantAvailable:   metav1.ConditionUnknown,
			wantReadyCount:  2,
			wantReplicasNow: 3,
		},
		{
			name: "a pod the kubelet refuses to run",
			ws:   newWebServer(three),
			deployment: deploymentWith(appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2,
			}),
			pods:       []corev1.Pod{readyPod("web-a"), refusedPod("web-b")},
			wantReady:  metav1.ConditionFalse,
			wantReason: reasonPodsFailing,
			wantMessage: "2 of 3 pods are ready; pod web-b cannot run container nginx: CreateContainerConfigError: " +
				"container has runAsNonRoot and image will run as root",
			wantAvailable:   metav1.ConditionUnknown,
			wantReadyCount:  2,
			wantReplicasNow: 3,
		},
		{
			name: "every pod ready",
			ws:   newWebServer(three),
			deployment: deploymentWith(appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3,
				Conditions: []appsv1.DeploymentCondition{available, progressing},
			}),
			wantReady:       metav1.ConditionTrue,
			wantReason:      reasonReady,
			wantMessage:     "3 of 3 pods are ready",
			wantAvailable:   metav1.ConditionTrue,
			wantReadyCount:  3,
			wantReplicasNow: 3,
		},
		{
			name:          "scaled to zero",
			ws:            newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](0) }),
			deployment:    deploymentWith(appsv1.DeploymentStatus{ObservedGeneration: 2}),
			wantReady:     metav1.ConditionTrue,
			wantReason:    reasonScaledToZero,
			wantAvailable: metav1.ConditionUnknown,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			tt.ws.Generation = 7
			deployment := applytest.Applied(t, desiredDeployment(tt.ws), tt.deployment)
			pods := podsOf(tt.ws, tt.pods)
			fromCache := tt.ws.DeepCopy()

			computeStatus(tt.ws, deployment, &autoscalingv2.HorizontalPodAutoscaler{}, pods, tt.applyErr)

			st := tt.ws.Status
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(7))
			g.Expect(st.Selector).To(Equal("app.kubernetes.io/instance=web,app.kubernetes.io/name=webserver"))
			g.Expect(st.Replicas).To(Equal(tt.wantReplicasNow))
			g.Expect(st.ReadyReplicas).To(Equal(tt.wantReadyCount))
			g.Expect(st.UpdatedReplicas).To(Equal(tt.deployment.Status.UpdatedReplicas))
			g.Expect(st.Conditions).To(HaveLen(3))
			for _, c := range st.Conditions {
				g.Expect(c.ObservedGeneration).To(BeEquivalentTo(7), c.Type)
			}

			ready := meta.FindStatusCondition(st.Conditions, seedv1alpha1.ConditionReady)
			g.Expect(ready.Status).To(Equal(tt.wantReady))
			g.Expect(ready.Reason).To(Equal(tt.wantReason))
			g.Expect(ready.Message).To(ContainSubstring(tt.wantMessage))
			avail := meta.FindStatusCondition(st.Conditions, seedv1alpha1.WebServerAvailable)
			g.Expect(avail.Status).To(Equal(tt.wantAvailable))

			computeStatus(fromCache, cachedtest.AsCached(t, Owned, deployment), &autoscalingv2.HorizontalPodAutoscaler{}, asCached(t, pods), tt.applyErr)
			cachedtest.ExpectSameStatus(t, fromCache, tt.ws)
		})
	}
}

func TestUntilFirstStatus(t *testing.T) {
	made := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	created := func(status appsv1.DeploymentStatus) *appsv1.Deployment {
		d := deploymentWith(status)
		d.CreationTimestamp = metav1.NewTime(made)
		return d
	}
	unreported := appsv1.DeploymentStatus{}
	notReady := appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1}
	ready := appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	reported := func(ws *seedv1alpha1.WebServer) { ws.Status.ObservedGeneration = ws.Generation }
	tests := []struct {
		name       string
		original   *seedv1alpha1.WebServer
		deployment *appsv1.Deployment
		applyErr   error
		now        time.Time
		want       time.Duration
	}{
		{
			name:       "a new WebServer's Deployment just made, not yet reported",
			original:   newWebServer(),
			deployment: created(unreported),
			now:        made.Add(2 * time.Second),
			want:       3 * time.Second,
		},
		{
			name:       "reported, its pod not yet ready",
			original:   newWebServer(),
			deployment: created(notReady),
			now:        made.Add(time.Second),
			want:       4 * time.Second,
		},
		{
			name:       "reported, its pod not yet made",
			original:   newWebServer(),
			deployment: created(appsv1.DeploymentStatus{ObservedGeneration: 2}),
			now:        made.Add(time.Second),
			want:       4 * time.Second,
		},
		{
			name:       "the operator's clock a minute behind the API server's",
			original:   newWebServer(),
			deployment: created(notReady),
			now:        made.Add(-time.Minute),
			want:       firstStatusGrace,
		},
		{
			name:       "the grace over",
			original:   newWebServer(),
			deployment: created(unreported),
			now:        made.Add(firstStatusGrace + time.Second),
		},
		{
			name:       "the grace over, its pod not ready",
			original:   newWebServer(),
			deployment: created(notReady),
			now:        made.Add(firstStatusGrace),
		},
		{
			name:       "ready",
			original:   newWebServer(),
			deployment: created(ready),
			now:        made.Add(time.Second),
		},
		{
			name:       "the apply failed: said at once",
			original:   newWebServer(),
			deployment: created(unreported),
			applyErr:   errors.New("admission webhook denied the request"),
			now:        made.Add(time.Second),
		},
		{
			name:       "scaled to zero",
			original:   newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](0) }),
			deployment: created(appsv1.DeploymentStatus{ObservedGeneration: 2}),
			now:        made.Add(time.Second),
		},
		{
			name:       "the WebServer has a status: a Deployment made again is said to be awaited",
			original:   newWebServer(reported),
			deployment: created(unreported),
			now:        made,
		},
		{
			name:       "no Deployment read back",
			original:   newWebServer(),
			deployment: &appsv1.Deployment{},
			now:        made,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := tt.original.DeepCopy()
			computeStatus(ws, tt.deployment, &autoscalingv2.HorizontalPodAutoscaler{}, nil, tt.applyErr)
			NewWithT(t).Expect(untilFirstStatus(tt.original, ws, tt.deployment, tt.now)).To(Equal(tt.want))
		})
	}
}

func TestComputeStatusCopiesDeploymentConditions(t *testing.T) {
	g := NewWithT(t)
	ws := newWebServer()
	computeStatus(ws, deploymentWith(appsv1.DeploymentStatus{
		ObservedGeneration: 2,
		Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
			Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-abc" has timed out progressing.`,
		}},
	}), &autoscalingv2.HorizontalPodAutoscaler{}, nil, nil)

	progressing := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.WebServerProgressing)
	g.Expect(progressing).To(PointTo(MatchFields(IgnoreExtras, Fields{
		"Status":  Equal(metav1.ConditionFalse),
		"Reason":  Equal("ProgressDeadlineExceeded"),
		"Message": Equal(`ReplicaSet "web-abc" has timed out progressing.`),
	})))
}

func TestComputeStatusFromAutoscaler(t *testing.T) {
	autoscaled := func(ws *seedv1alpha1.WebServer) {
		ws.Spec.Autoscaling = &seedv1alpha1.WebServerAutoscaling{MinReplicas: ptr.To[int32](1), MaxReplicas: 4}
	}
	limited := func(status corev1.ConditionStatus, reason string) autoscalingv2.HorizontalPodAutoscalerCondition {
		return autoscalingv2.HorizontalPodAutoscalerCondition{
			Type: autoscalingv2.ScalingLimited, Status: status, Reason: reason, Message: "the desired count is " + reason,
		}
	}
	scaled := metav1.NewTime(time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC))
	tests := []struct {
		name          string
		ws            *seedv1alpha1.WebServer
		autoscaler    autoscalingv2.HorizontalPodAutoscalerStatus
		wantStatus    *seedv1alpha1.WebServerAutoscalingStatus
		wantLimited   metav1.ConditionStatus
		wantReason    string
		wantCondition bool
	}{
		{
			name: "without autoscaling, neither status nor condition",
			ws: newWebServer(func(ws *seedv1alpha1.WebServer) {
				ws.Status.Autoscaling = &seedv1alpha1.WebServerAutoscalingStatus{CurrentReplicas: 3}
			}),
		},
		{
			name:          "an autoscaler that has not reported",
			ws:            newWebServer(autoscaled),
			wantStatus:    &seedv1alpha1.WebServerAutoscalingStatus{},
			wantCondition: true, wantLimited: metav1.ConditionUnknown, wantReason: reasonAwaitingAutoscaler,
		},
		{
			name: "within its range",
			ws:   newWebServer(autoscaled),
			autoscaler: autoscalingv2.HorizontalPodAutoscalerStatus{
				CurrentReplicas: 2, DesiredReplicas: 3, LastScaleTime: &scaled,
				CurrentMetrics: []autoscalingv2.MetricStatus{cpuAt(70)},
				Conditions:     []autoscalingv2.HorizontalPodAutoscalerCondition{limited(corev1.ConditionFalse, "DesiredWithinRange")},
			},
			wantStatus: &seedv1alpha1.WebServerAutoscalingStatus{
				CurrentReplicas: 2, DesiredReplicas: 3, LastScaleTime: &scaled, CurrentCPUUtilizationPercentage: ptr.To[int32](70),
			},
			wantCondition: true, wantLimited: metav1.ConditionFalse, wantReason: reasonWithinRange,
		},
		{
			name: "held at its minimum is not limited",
			ws:   newWebServer(autoscaled),
			autoscaler: autoscalingv2.HorizontalPodAutoscalerStatus{
				CurrentReplicas: 1, DesiredReplicas: 1,
				Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{limited(corev1.ConditionTrue, "TooFewReplicas")},
			},
			wantStatus:    &seedv1alpha1.WebServerAutoscalingStatus{CurrentReplicas: 1, DesiredReplicas: 1},
			wantCondition: true, wantLimited: metav1.ConditionFalse, wantReason: reasonWithinRange,
		},
		{
			name: "held at its maximum above the target",
			ws:   newWebServer(autoscaled),
			autoscaler: autoscalingv2.HorizontalPodAutoscalerStatus{
				CurrentReplicas: 4, DesiredReplicas: 4,
				CurrentMetrics: []autoscalingv2.MetricStatus{cpuAt(190)},
				Conditions:     []autoscalingv2.HorizontalPodAutoscalerCondition{limited(corev1.ConditionTrue, "TooManyReplicas")},
			},
			wantStatus:    &seedv1alpha1.WebServerAutoscalingStatus{CurrentReplicas: 4, DesiredReplicas: 4, CurrentCPUUtilizationPercentage: ptr.To[int32](190)},
			wantCondition: true, wantLimited: metav1.ConditionTrue, wantReason: seedv1alpha1.ReasonTooManyReplicas,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			kube.SetCondition(tt.ws, seedv1alpha1.WebServerScalingLimited, metav1.ConditionTrue, "Stale", "from before")
			fromCache := tt.ws.DeepCopy()
			autoscaler := &autoscalingv2.HorizontalPodAutoscaler{Status: tt.autoscaler}
			if tt.ws.Spec.Autoscaling != nil {
				autoscaler.ObjectMeta = metav1.ObjectMeta{Name: tt.ws.Name, Namespace: tt.ws.Namespace}
				autoscaler = applytest.Applied(t, desiredAutoscaler(tt.ws), autoscaler)
			}

			computeStatus(tt.ws, deploymentWith(appsv1.DeploymentStatus{}), autoscaler, nil, nil)

			g.Expect(tt.ws.Status.Autoscaling).To(BeComparableTo(tt.wantStatus))
			condition := meta.FindStatusCondition(tt.ws.Status.Conditions, seedv1alpha1.WebServerScalingLimited)
			if !tt.wantCondition {
				g.Expect(condition).To(BeNil())
				return
			}
			g.Expect(condition).NotTo(BeNil())
			g.Expect(condition.Status).To(Equal(tt.wantLimited))
			g.Expect(condition.Reason).To(Equal(tt.wantReason))

			computeStatus(fromCache, deploymentWith(appsv1.DeploymentStatus{}), cachedtest.AsCached(t, Owned, autoscaler), nil, nil)
			cachedtest.ExpectSameStatus(t, fromCache, tt.ws)
		})
	}
}

func cpuAt(percent int32) autoscalingv2.MetricStatus {
	return autoscalingv2.MetricStatus{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricStatus{
			Name:    corev1.ResourceCPU,
			Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(percent)},
		},
	}
}

func readyPod(name string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: containerName, Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		}}},
	}
}

func refusedPod(name string) corev1.Pod {
	return waitingPod(name, "CreateContainerConfigError", "container has runAsNonRoot and image will run as root")
}

func waitingPod(name, reason, message string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: containerName, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}},
		}}},
	}
}

// podsOf are pods, as the WebServer's Deployment labels them.
func podsOf(ws *seedv1alpha1.WebServer, pods []corev1.Pod) []corev1.Pod {
	labelled := make([]corev1.Pod, 0, len(pods))
	for _, pod := range pods {
		pod := pod.DeepCopy()
		pod.Labels = kube.Labels(kind, ws.Name)
		labelled = append(labelled, *pod)
	}
	return labelled
}

// asCached are pods as the manager's cache keeps them.
func asCached(tb testing.TB, pods []corev1.Pod) []corev1.Pod {
	tb.Helper()
	cached := make([]corev1.Pod, 0, len(pods))
	for i := range pods {
		cached = append(cached, *cachedtest.AsCached(tb, Owned, &pods[i]))
	}
	return cached
}

func TestPodProblem(t *testing.T) {
	deleting := waitingPod("web-z", "ErrImagePull", "not found")
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	unschedulable := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-u"},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/3 nodes are available: 3 Insufficient memory.",
		}}},
	}
	tests := []struct {
		name string
		pods []corev1.Pod
		want string
	}{
		{name: "no pods", want: ""},
		{name: "ready pods", pods: []corev1.Pod{readyPod("web-a"), readyPod("web-b")}, want: ""},
		{name: "a container being created", pods: []corev1.Pod{waitingPod("web-a", "ContainerCreating", "")}, want: ""},
		{
			name: "an image that cannot be pulled, first of the pods by name",
			pods: []corev1.Pod{waitingPod("web-c", "CrashLoopBackOff", "back-off 10s"), waitingPod("web-b", "ImagePullBackOff", "Back-off pulling image")},
			want: "pod web-b cannot run container nginx: ImagePullBackOff: Back-off pulling image",
		},
		{name: "a pod being deleted", pods: []corev1.Pod{deleting}, want: ""},
		{
			name: "a pod that fits no node",
			pods: []corev1.Pod{unschedulable},
			want: "pod web-u cannot be scheduled: 0/3 nodes are available: 3 Insufficient memory.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(podProblem(tt.pods)).To(Equal(tt.want))

			cached := asCached(t, podsOf(newWebServer(), tt.pods))
			g.Expect(podProblem(cached)).To(Equal(tt.want), "from what the cache keeps of the pods")
		})
	}
}
