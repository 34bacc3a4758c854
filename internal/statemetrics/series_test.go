package statemetrics

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// render writes samples as name{label values} value, sorted.
func render(samples []sample) []string {
	out := make([]string, 0, len(samples))
	for _, s := range samples {
		out = append(out, fmt.Sprintf("%s{%s} %g", s.metric.name, strings.Join(s.labels, ","), s.value))
	}
	slices.Sort(out)
	return out
}

func expectSeries(t *testing.T, got []sample, want ...string) {
	t.Helper()
	slices.Sort(want)
	if r := render(got); !slices.Equal(r, want) {
		t.Errorf("series:\n  got  %s\n  want %s", strings.Join(r, "\n       "), strings.Join(want, "\n       "))
	}
}

var (
	objectMeta = metav1.ObjectMeta{Namespace: "team-a", Name: "web", Generation: 3}
	started    = metav1.NewTime(time.Unix(1_000_000, 0))
	finished   = metav1.NewTime(time.Unix(1_000_042, 500_000_000))
)

func ready(status metav1.ConditionStatus, reason string, generation int64) metav1.Condition {
	return metav1.Condition{Type: seedv1alpha1.ConditionReady, Status: status, Reason: reason, ObservedGeneration: generation}
}

func TestResourceSamples(t *testing.T) {
	tests := []struct {
		name       string
		conditions []metav1.Condition
		want       []string
	}{
		{
			name:       "ready at the current generation",
			conditions: []metav1.Condition{ready(metav1.ConditionTrue, "Ready", 3)},
			want:       []string{"seed_resource_ready{WebServer,team-a,web,Ready} 1", "seed_resource_generation_lag{WebServer,team-a,web} 0"},
		},
		{
			name:       "not ready, a generation behind",
			conditions: []metav1.Condition{ready(metav1.ConditionFalse, "RollingOut", 2)},
			want:       []string{"seed_resource_ready{WebServer,team-a,web,RollingOut} 0", "seed_resource_generation_lag{WebServer,team-a,web} 1"},
		},
		{
			name: "never reconciled: no reason, every generation behind",
			want: []string{"seed_resource_ready{WebServer,team-a,web,} 0", "seed_resource_generation_lag{WebServer,team-a,web} 3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := &seedv1alpha1.WebServer{ObjectMeta: objectMeta, Status: seedv1alpha1.WebServerStatus{Conditions: tt.conditions}}
			expectSeries(t, resourceSamples("WebServer", ws), tt.want...)
		})
	}
}

func TestWebServerSamples(t *testing.T) {
	progressing := func(status metav1.ConditionStatus, reason string) []metav1.Condition {
		return []metav1.Condition{{Type: seedv1alpha1.WebServerProgressing, Status: status, Reason: reason}}
	}
	tests := []struct {
		name     string
		replicas *int32
		status   seedv1alpha1.WebServerStatus
		want     []string
	}{
		{
			name:     "rolled out",
			replicas: ptr.To[int32](3),
			status: seedv1alpha1.WebServerStatus{Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3,
				Conditions: progressing(metav1.ConditionTrue, "NewReplicaSetAvailable")},
			want: []string{"3", "3", "3", "3", "0", "0"},
		},
		{
			name:     "rolling out",
			replicas: ptr.To[int32](3),
			status: seedv1alpha1.WebServerStatus{Replicas: 4, ReadyReplicas: 3, UpdatedReplicas: 1,
				Conditions: progressing(metav1.ConditionTrue, "ReplicaSetUpdated")},
			want: []string{"3", "4", "3", "1", "1", "0"},
		},
		{
			name:     "stalled past its progress deadline",
			replicas: ptr.To[int32](2),
			status: seedv1alpha1.WebServerStatus{Replicas: 3, ReadyReplicas: 2, UpdatedReplicas: 1,
				Conditions: progressing(metav1.ConditionFalse, "ProgressDeadlineExceeded")},
			want: []string{"2", "3", "2", "1", "0", "1"},
		},
		{
			name: "new: replicas defaulted, no Deployment status yet",
			want: []string{"1", "0", "0", "0", "0", "0"},
		},
	}
	names := []string{"seed_webserver_replicas_desired", "seed_webserver_replicas", "seed_webserver_replicas_ready",
		"seed_webserver_replicas_updated", "seed_webserver_rollout_in_progress", "seed_webserver_rollout_stalled"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := &seedv1alpha1.WebServer{ObjectMeta: objectMeta, Spec: seedv1alpha1.WebServerSpec{Replicas: tt.replicas}, Status: tt.status}
			want := make([]string, 0, len(names))
			for i, name := range names {
				want = append(want, name+"{team-a,web} "+tt.want[i])
			}
			expectSeries(t, webServerSamples(ws), want...)
		})
	}
}

func TestWebServerAutoscalingSamples(t *testing.T) {
	limited := func(status metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: seedv1alpha1.WebServerScalingLimited, Status: status, Reason: "TooManyReplicas"}}
	}
	tests := []struct {
		name       string
		conditions []metav1.Condition
		want       string
	}{
		{name: "held at its maximum", conditions: limited(metav1.ConditionTrue), want: "1"},
		{name: "within its range", conditions: limited(metav1.ConditionFalse), want: "0"},
		{name: "before the autoscaler reports", want: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := &seedv1alpha1.WebServer{ObjectMeta: objectMeta,
				Spec:   seedv1alpha1.WebServerSpec{Autoscaling: &seedv1alpha1.WebServerAutoscaling{MaxReplicas: 4}},
				Status: seedv1alpha1.WebServerStatus{Conditions: tt.conditions},
			}
			samples := webServerSamples(ws)
			expectSeries(t, samples[len(samples)-3:], "seed_webserver_autoscaling_min_replicas{team-a,web} 1",
				"seed_webserver_autoscaling_max_replicas{team-a,web} 4", "seed_webserver_scaling_limited{team-a,web} "+tt.want)
		})
	}
}

func TestEchoSamples(t *testing.T) {
	phases := func(current string) []string {
		out := make([]string, 0, len(echoPhases))
		for _, p := range echoPhases {
			out = append(out, fmt.Sprintf("seed_echo_phase{team-a,web,%s} %d", p, map[bool]int{true: 1}[string(p) == current]))
		}
		return out
	}
	tests := []struct {
		name   string
		status seedv1alpha1.EchoStatus
		want   []string
	}{
		{name: "not started", want: phases("")},
		{name: "running", status: seedv1alpha1.EchoStatus{Phase: seedv1alpha1.EchoRunning, StartTime: &started}, want: phases("Running")},
		{
			name:   "succeeded: how long it ran",
			status: seedv1alpha1.EchoStatus{Phase: seedv1alpha1.EchoSucceeded, StartTime: &started, CompletionTime: &finished},
			want:   append(phases("Succeeded"), "seed_echo_run_duration_seconds{team-a,web} 42.5"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectSeries(t, echoSamples(&seedv1alpha1.Echo{ObjectMeta: objectMeta, Status: tt.status}), tt.want...)
		})
	}
}

func TestScheduledEchoSamples(t *testing.T) {
	// started is 13:46:40 UTC.
	const every5Minutes, hourly = "*/5 * * * *", "0 * * * *"
	tests := []struct {
		name     string
		schedule string
		timeZone *string
		suspend  *bool
		status   seedv1alpha1.ScheduledEchoStatus
		want     []string
	}{
		{
			name:     "never run: the first run is due after its creation",
			schedule: every5Minutes,
			want: []string{"seed_scheduledecho_active_runs{team-a,web} 0", "seed_scheduledecho_suspended{team-a,web} 0",
				"seed_scheduledecho_next_schedule_time_seconds{team-a,web} 1.0002e+06"},
		},
		{
			name:     "suspended after a run that succeeded, another under way",
			schedule: every5Minutes,
			suspend:  ptr.To(true),
			status:   seedv1alpha1.ScheduledEchoStatus{LastScheduleTime: &finished, LastSuccessfulTime: &started, Active: []string{"web-1"}},
			want: []string{
				"seed_scheduledecho_active_runs{team-a,web} 1", "seed_scheduledecho_suspended{team-a,web} 1",
				"seed_scheduledecho_last_schedule_time_seconds{team-a,web} 1.0000425e+06",
				"seed_scheduledecho_last_successful_time_seconds{team-a,web} 1e+06",
				"seed_scheduledecho_next_schedule_time_seconds{team-a,web} 1.0002e+06",
			},
		},
		{
			name:     "hourly in a time zone half an hour off UTC: due at 14:30 UTC",
			schedule: hourly,
			timeZone: ptr.To("Asia/Kolkata"),
			want: []string{"seed_scheduledecho_active_runs{team-a,web} 0", "seed_scheduledecho_suspended{team-a,web} 0",
				"seed_scheduledecho_next_schedule_time_seconds{team-a,web} 1.0026e+06"},
		},
		{
			name:     "a schedule it cannot read: no next run",
			schedule: "every day",
			want:     []string{"seed_scheduledecho_active_runs{team-a,web} 0", "seed_scheduledecho_suspended{team-a,web} 0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := objectMeta
			meta.CreationTimestamp = started
			s := &seedv1alpha1.ScheduledEcho{ObjectMeta: meta, Status: tt.status,
				Spec: seedv1alpha1.ScheduledEchoSpec{Schedule: seedv1alpha1.CronSchedule(tt.schedule), TimeZone: tt.timeZone, Suspend: tt.suspend}}
			expectSeries(t, scheduledEchoSamples(s), tt.want...)
		})
	}
}

func TestImmortalContainerSamples(t *testing.T) {
	tests := []struct {
		name   string
		status seedv1alpha1.ImmortalContainerStatus
		want   []string
	}{
		{name: "no pod yet", want: []string{"seed_immortalcontainer_pod_starts_total{team-a,web} 0"}},
		{
			name:   "the current pod is the latest start",
			status: seedv1alpha1.ImmortalContainerStatus{PodsStarted: 2, StartTimes: []metav1.Time{started, finished}},
			want: []string{"seed_immortalcontainer_pod_starts_total{team-a,web} 2",
				"seed_immortalcontainer_pod_start_time_seconds{team-a,web} 1.0000425e+06"},
		},
		{
			name:   "backing off before the next start",
			status: seedv1alpha1.ImmortalContainerStatus{PodsStarted: 5, StartTimes: []metav1.Time{started}, NextStartTime: &finished},
			want: []string{"seed_immortalcontainer_pod_starts_total{team-a,web} 5",
				"seed_immortalcontainer_pod_start_time_seconds{team-a,web} 1e+06",
				"seed_immortalcontainer_next_start_time_seconds{team-a,web} 1.0000425e+06"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectSeries(t, immortalContainerSamples(&seedv1alpha1.ImmortalContainer{ObjectMeta: objectMeta, Status: tt.status}), tt.want...)
		})
	}
}

func TestDemoVolumeSamples(t *testing.T) {
	phases := func(current corev1.PersistentVolumeClaimPhase) []string {
		out := make([]string, 0, len(claimPhases))
		for _, p := range claimPhases {
			out = append(out, fmt.Sprintf("seed_demovolume_phase{team-a,web,%s} %d", p, map[bool]int{true: 1}[p == current]))
		}
		return out
	}
	tests := []struct {
		name     string
		autoGrow *seedv1alpha1.DemoVolumeAutoGrow
		status   seedv1alpha1.DemoVolumeStatus
		want     []string
	}{
		{
			name:   "pending: no capacity yet",
			status: seedv1alpha1.DemoVolumeStatus{Phase: corev1.ClaimPending},
			want: append(phases(corev1.ClaimPending), "seed_demovolume_requested_bytes{team-a,web} 2.147483648e+09",
				"seed_demovolume_resizing{team-a,web} 0"),
		},
		{
			name: "bound, growing from 1Gi",
			status: seedv1alpha1.DemoVolumeStatus{Phase: corev1.ClaimBound, Capacity: "1Gi",
				Conditions: []metav1.Condition{{Type: seedv1alpha1.DemoVolumeResizing, Status: metav1.ConditionTrue}}},
			want: append(phases(corev1.ClaimBound), "seed_demovolume_requested_bytes{team-a,web} 2.147483648e+09",
				"seed_demovolume_resizing{team-a,web} 1", "seed_demovolume_capacity_bytes{team-a,web} 1.073741824e+09"),
		},
		{
			name:     "growing by itself, full at its maximum",
			autoGrow: &seedv1alpha1.DemoVolumeAutoGrow{MaxSize: 2},
			status: seedv1alpha1.DemoVolumeStatus{Phase: corev1.ClaimBound, Capacity: "2Gi",
				Usage:      &seedv1alpha1.DemoVolumeUsage{Used: "1900Mi", Capacity: "2Gi", Percent: 92},
				Conditions: []metav1.Condition{{Type: seedv1alpha1.DemoVolumeAtMaxSize, Status: metav1.ConditionTrue}}},
			want: append(phases(corev1.ClaimBound), "seed_demovolume_requested_bytes{team-a,web} 2.147483648e+09",
				"seed_demovolume_resizing{team-a,web} 0", "seed_demovolume_capacity_bytes{team-a,web} 2.147483648e+09",
				"seed_demovolume_at_max_size{team-a,web} 1", "seed_demovolume_used_bytes{team-a,web} 1.9922944e+09"),
		},
		{
			name:     "growing by itself, not measured yet",
			autoGrow: &seedv1alpha1.DemoVolumeAutoGrow{MaxSize: 2},
			status:   seedv1alpha1.DemoVolumeStatus{Phase: corev1.ClaimBound, Capacity: "2Gi"},
			want: append(phases(corev1.ClaimBound), "seed_demovolume_requested_bytes{team-a,web} 2.147483648e+09",
				"seed_demovolume_resizing{team-a,web} 0", "seed_demovolume_capacity_bytes{team-a,web} 2.147483648e+09",
				"seed_demovolume_at_max_size{team-a,web} 0"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dv := &seedv1alpha1.DemoVolume{ObjectMeta: objectMeta, Spec: seedv1alpha1.DemoVolumeSpec{Size: 2, AutoGrow: tt.autoGrow}, Status: tt.status}
			expectSeries(t, demoVolumeSamples(dv), tt.want...)
		})
	}
}
