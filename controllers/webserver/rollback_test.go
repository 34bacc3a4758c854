package webserver

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply/applytest"
	"github.com/seed-operators/seed-operator/internal/cached/cachedtest"
)

const (
	goodImage = "registry.example.com/nginx:1"
	badImage  = "registry.example.com/nginx:missing"
)

// upgraded is a WebServer that ran goodImage, fully available, and now
// asks for badImage.
func upgraded(ws *seedv1alpha1.WebServer) {
	ws.Status.LastAvailableImage = goodImage
	ws.Spec.Image = badImage
}

func TestFailedRollout(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	exceeded := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
		Reason: seedv1alpha1.ReasonProgressDeadlineExceeded, Message: `ReplicaSet "web-7d9f" has timed out progressing.`,
	}
	progressing := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated",
	}
	timedOut := appsv1.DeploymentStatus{ObservedGeneration: 2, Conditions: []appsv1.DeploymentCondition{exceeded}}
	notPulled := waitingPod("web-new", "ImagePullBackOff", `Back-off pulling image "`+badImage+`"`)
	unready := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-new"},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: containerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		}}},
	}

	tests := []struct {
		name       string
		ws         *seedv1alpha1.WebServer
		status     appsv1.DeploymentStatus
		pods       []corev1.Pod
		wantReason string // "" for no rollback
	}{
		{
			name:       "a new image's pods cannot pull it",
			ws:         newWebServer(upgraded),
			status:     timedOut,
			pods:       []corev1.Pod{readyPod("web-old"), notPulled},
			wantReason: `pod web-new cannot run container nginx: ImagePullBackOff: Back-off pulling image "` + badImage + `"`,
		},
		{
			name:       "a new image's pods run and fail their readiness probe",
			ws:         newWebServer(upgraded),
			status:     timedOut,
			pods:       []corev1.Pod{readyPod("web-old"), unready},
			wantReason: "pods web-new run and are not ready: their readiness probe fails",
		},
		{
			name:       "no new pod to say why",
			ws:         newWebServer(upgraded),
			status:     timedOut,
			pods:       []corev1.Pod{readyPod("web-old")},
			wantReason: "no new pod became ready",
		},
		{
			name:   "still within the deadline",
			ws:     newWebServer(upgraded),
			status: appsv1.DeploymentStatus{ObservedGeneration: 2, Conditions: []appsv1.DeploymentCondition{progressing}},
			pods:   []corev1.Pod{readyPod("web-old"), notPulled},
		},
		{
			name:   "a timeout reported of the template before",
			ws:     newWebServer(upgraded),
			status: appsv1.DeploymentStatus{ObservedGeneration: 1, Conditions: []appsv1.DeploymentCondition{exceeded}},
		},
		{
			name:   "automatic rollback turned off",
			ws:     newWebServer(upgraded, func(ws *seedv1alpha1.WebServer) { ws.Spec.Rollout.AutoRollback = ptr.To(false) }),
			status: timedOut,
		},
		{
			name:   "no image was ever available",
			ws:     newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = badImage }),
			status: timedOut,
		},
		{
			name:   "the available image itself timed out, scaling up",
			ws:     newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Status.LastAvailableImage = ws.Spec.Image }),
			status: timedOut,
		},
		{
			name: "rolled back already",
			ws: newWebServer(upgraded, func(ws *seedv1alpha1.WebServer) {
				ws.Status.Rollback = &seedv1alpha1.WebServerRollback{Image: badImage, To: goodImage}
			}),
			status: timedOut,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			deployment := applytest.Applied(t, desiredDeployment(tt.ws), deploymentWith(tt.status))
			pods := podsOf(tt.ws, tt.pods)
			got := failedRollout(tt.ws, deployment, pods, now)
			fromCache := failedRollout(tt.ws, cachedtest.AsCached(t, Owned, deployment), asCached(t, pods), now)
			g.Expect(fromCache).To(Equal(got), "the same from the manager's cache")
			if tt.wantReason == "" {
				g.Expect(got).To(BeNil())
				return
			}
			g.Expect(got).To(Equal(&seedv1alpha1.WebServerRollback{
				Image: badImage, To: goodImage, Reason: tt.wantReason, Time: metav1.NewTime(now),
			}))
		})
	}
}

func TestPodImage(t *testing.T) {
	rolledBack := func(ws *seedv1alpha1.WebServer) {
		ws.Status.Rollback = &seedv1alpha1.WebServerRollback{Image: badImage, To: goodImage}
	}
	for _, tt := range []struct {
		name string
		ws   *seedv1alpha1.WebServer
		want string
	}{
		{"the spec's", newWebServer(upgraded), badImage},
		{"the one a rollback went back to, while the spec asks for the failed one", newWebServer(upgraded, rolledBack), goodImage},
		{"the spec's once it changes again", newWebServer(upgraded, rolledBack, func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Image = "registry.example.com/nginx:2"
		}), "registry.example.com/nginx:2"},
		{"the spec's when automatic rollback is turned off", newWebServer(upgraded, rolledBack, func(ws *seedv1alpha1.WebServer) {
			ws.Spec.Rollout.AutoRollback = ptr.To(false)
		}), badImage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(podImage(tt.ws)).To(Equal(tt.want))
			container := desiredDeployment(tt.ws).Spec.Template.Spec.Containers[0]
			g.Expect(container.Image).To(HaveValue(Equal(tt.want)), "the Deployment's")
		})
	}
}

func TestStatusOfARollback(t *testing.T) {
	ready := appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1}
	rollback := &seedv1alpha1.WebServerRollback{Image: badImage, To: goodImage, Reason: "pod web-new cannot run container nginx: ImagePullBackOff: Back-off"}

	t.Run("every pod ready on an image: the last available", func(t *testing.T) {
		g := NewWithT(t)
		ws := newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.Image = goodImage })
		computeStatus(ws, applytest.Applied(t, desiredDeployment(ws), deploymentWith(ready)), &autoscalingv2.HorizontalPodAutoscaler{}, nil, nil)
		g.Expect(ws.Status.LastAvailableImage).To(Equal(goodImage))
	})

	t.Run("rolled back: not Ready, saying why, the last available image kept", func(t *testing.T) {
		g := NewWithT(t)
		ws := newWebServer(upgraded, func(ws *seedv1alpha1.WebServer) { ws.Status.Rollback = rollback })
		computeStatus(ws, applytest.Applied(t, desiredDeployment(ws), deploymentWith(ready)), &autoscalingv2.HorizontalPodAutoscaler{}, nil, nil)
		c := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady)
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.Reason).To(Equal(seedv1alpha1.ReasonRolledBack))
		g.Expect(c.Message).To(Equal("Image " + badImage + " did not roll out within 120s, so the pods went back to " + goodImage +
			": pod web-new cannot run container nginx: ImagePullBackOff: Back-off"))
		g.Expect(ws.Status.Rollback).To(Equal(rollback))
		g.Expect(ws.Status.LastAvailableImage).To(Equal(goodImage))
	})

	t.Run("a new image: the rollback is over", func(t *testing.T) {
		g := NewWithT(t)
		ws := newWebServer(upgraded, func(ws *seedv1alpha1.WebServer) {
			ws.Status.Rollback = rollback
			ws.Spec.Image = "registry.example.com/nginx:2"
		})
		computeStatus(ws, applytest.Applied(t, desiredDeployment(ws), deploymentWith(ready)), &autoscalingv2.HorizontalPodAutoscaler{}, nil, nil)
		g.Expect(ws.Status.Rollback).To(BeNil())
		g.Expect(meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady).Reason).To(Equal(reasonReady))
		g.Expect(ws.Status.LastAvailableImage).To(Equal("registry.example.com/nginx:2"))
	})
}
