package webserver

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/seed-operators/seed-operator/internal/cached"
)

// The cache keeps, of a WebServer's pod, the scheduler's condition, the
// waiting containers' states, without their times, and which containers
// run and are not ready.
func TestKeepProblemStatus(t *testing.T) {
	start := metav1.Now()
	waiting := &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}
	tests := []struct {
		name   string
		status corev1.PodStatus
		want   corev1.PodStatus
	}{
		{
			name: "a running pod keeps only that it was scheduled",
			status: corev1.PodStatus{
				Phase: corev1.PodRunning, PodIP: "198.18.0.7", PodIPs: []corev1.PodIP{{IP: "198.18.0.7"}},
				HostIP: "198.18.0.1", StartTime: &start, QOSClass: corev1.PodQOSBestEffort,
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start},
					{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
				},
				ContainerStatuses: []corev1.ContainerStatus{{
					Name: containerName, Ready: true, Image: "nginx:1.27", ContainerID: "containerd://0a1b",
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}},
				}},
			},
			want: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}},
		},
		{
			name: "an unschedulable pod keeps why",
			status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, LastProbeTime: start,
				Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available",
			}}},
			want: corev1.PodStatus{Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available",
			}}},
		},
		{
			name: "a waiting container keeps its state, a running one nothing",
			status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
				{Name: "sidecar", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}}},
				{Name: containerName, Image: "nginx:none", RestartCount: 3, State: corev1.ContainerState{Waiting: waiting}},
			}},
			want: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
				{Name: containerName, State: corev1.ContainerState{Waiting: waiting}},
			}},
		},
		{
			name: "a running container that is not ready keeps that it runs",
			status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
				{Name: containerName, Image: "nginx:1.27", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}}},
			}},
			want: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
				{Name: containerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-a"}, Status: tt.status}
			keepProblemStatus(pod)
			g.Expect(pod.Status).To(Equal(tt.want))
			keepProblemStatus(pod)
			g.Expect(pod.Status).To(Equal(tt.want), "the cache's transform keeps what it kept")
		})
	}
}

// BenchmarkCachedPod prints the live heap a WebServer's pod takes, as the
// API server sent it for a pod that kwok runs (testdata/pod.json): decoded
// whole, and as the manager's cache keeps it. Run it with a fixed count of
// pods, e.g. -benchtime 2000x; the time it prints includes the decoding.
func BenchmarkCachedPod(b *testing.B) {
	data, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var transform toolscache.TransformFunc
	for obj, byObject := range cached.Options(nil, Owned...).ByObject {
		if _, ok := obj.(*corev1.Pod); ok {
			transform = byObject.Transform
		}
	}
	for _, bm := range []struct {
		name      string
		transform toolscache.TransformFunc
	}{
		{name: "whole", transform: func(obj any) (any, error) { return obj, nil }},
		{name: "cached", transform: transform},
	} {
		b.Run(bm.name, func(b *testing.B) {
			pods := make([]any, 0, b.N)
			before := liveHeap()
			for range b.N {
				pod := &corev1.Pod{}
				if err := json.Unmarshal(data, pod); err != nil {
					b.Fatal(err)
				}
				cached, err := bm.transform(pod)
				if err != nil {
					b.Fatal(err)
				}
				pods = append(pods, cached)
			}
			b.StopTimer()
			b.ReportMetric(float64(liveHeap()-before)/float64(b.N), "live-B/pod")
			runtime.KeepAlive(pods)
		})
	}
}

// liveHeap is the heap's live objects, in bytes, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}
