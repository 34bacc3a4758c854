package plugin

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// now is the time of every fixture: what happened did so minutes before.
var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

func objectMeta(name string, generation int64) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "shop", Generation: generation, CreationTimestamp: ago(time.Hour)}
}

func ready(status metav1.ConditionStatus, reason, message string, generation int64) []metav1.Condition {
	return []metav1.Condition{{Type: seedv1alpha1.ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: generation}}
}

// everyState is a namespace with a resource of every kind in every state
// status tells apart, in the order it lists them.
func everyState() []client.ObjectList {
	return []client.ObjectList{
		&seedv1alpha1.EchoList{Items: []seedv1alpha1.Echo{
			{ObjectMeta: objectMeta("hello", 1), Status: seedv1alpha1.EchoStatus{
				JobName: "hello", Phase: seedv1alpha1.EchoSucceeded, CompletionTime: ptr.To(ago(50 * time.Minute)),
				Conditions: ready(metav1.ConditionTrue, "Succeeded", "Job hello printed the message", 1)}},
			{ObjectMeta: objectMeta("failing", 1), Status: seedv1alpha1.EchoStatus{
				JobName: "failing", Phase: seedv1alpha1.EchoFailedPhase,
				Conditions: ready(metav1.ConditionFalse, "Failed", "Job failing failed: BackoffLimitExceeded", 1)}},
			{ObjectMeta: objectMeta("new", 1)},
		}},
		&seedv1alpha1.ScheduledEchoList{Items: []seedv1alpha1.ScheduledEcho{
			{ObjectMeta: objectMeta("tick", 1), Spec: seedv1alpha1.ScheduledEchoSpec{Schedule: "*/5 * * * *", TimeZone: ptr.To("Europe/Paris")},
				Status: seedv1alpha1.ScheduledEchoStatus{CronJobName: "tick", LastScheduleTime: ptr.To(ago(time.Minute)),
					LastSuccessfulTime: ptr.To(ago(6 * time.Minute)), Active: []string{"tick-29409120"},
					Conditions: ready(metav1.ConditionTrue, "Scheduled", "CronJob tick is scheduled", 1)}},
			{ObjectMeta: objectMeta("paused", 2), Spec: seedv1alpha1.ScheduledEchoSpec{Schedule: "@hourly", Suspend: ptr.To(true)},
				Status: seedv1alpha1.ScheduledEchoStatus{CronJobName: "paused",
					Conditions: ready(metav1.ConditionTrue, "Suspended", "CronJob paused is suspended", 2)}},
		}},
		&seedv1alpha1.ImmortalContainerList{Items: []seedv1alpha1.ImmortalContainer{
			{ObjectMeta: objectMeta("keeper", 1), Status: seedv1alpha1.ImmortalContainerStatus{
				CurrentPod: "keeper-x7k2p", PodsStarted: 3, StartTimes: []metav1.Time{ago(time.Hour), ago(30 * time.Minute), ago(2 * time.Minute)},
				Conditions: ready(metav1.ConditionTrue, "Running", "Pod keeper-x7k2p is running", 1)}},
			{ObjectMeta: objectMeta("crashing", 1), Status: seedv1alpha1.ImmortalContainerStatus{
				PodsStarted: 9, StartTimes: []metav1.Time{ago(time.Minute)}, NextStartTime: ptr.To(metav1.NewTime(now.Add(4 * time.Minute))),
				Conditions: ready(metav1.ConditionFalse, "BackingOff", "Pod crashing-q9w1z exited 1: starting another after 5m0s", 1)}},
		}},
		&seedv1alpha1.WebServerList{Items: []seedv1alpha1.WebServer{
			{ObjectMeta: objectMeta("web", 3), Spec: seedv1alpha1.WebServerSpec{Image: "nginx:1.29",
				Autoscaling: &seedv1alpha1.WebServerAutoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 4}},
				Status: seedv1alpha1.WebServerStatus{Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3, LastAvailableImage: "nginx:1.29",
					Autoscaling: &seedv1alpha1.WebServerAutoscalingStatus{CurrentReplicas: 3, DesiredReplicas: 4, CurrentCPUUtilizationPercentage: ptr.To[int32](91)},
					Conditions:  ready(metav1.ConditionTrue, "Available", "Deployment web is available", 3)}},
			{ObjectMeta: objectMeta("shop", 5), Spec: seedv1alpha1.WebServerSpec{Image: "nginx:broken"},
				Status: seedv1alpha1.WebServerStatus{Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2, LastAvailableImage: "nginx:1.28",
					Rollback:   &seedv1alpha1.WebServerRollback{Image: "nginx:broken", To: "nginx:1.28", Reason: "ProgressDeadlineExceeded", Time: ago(10 * time.Minute)},
					Conditions: ready(metav1.ConditionFalse, seedv1alpha1.ReasonRolledBack, "Image nginx:broken did not become available: rolled back to nginx:1.28", 5)}},
			{ObjectMeta: objectMeta("edited", 7), Spec: seedv1alpha1.WebServerSpec{Image: "nginx:1.29"},
				Status: seedv1alpha1.WebServerStatus{Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1,
					Conditions: ready(metav1.ConditionTrue, "Available", "Deployment edited is available", 6)}},
		}},
		&seedv1alpha1.DemoVolumeList{Items: []seedv1alpha1.DemoVolume{
			{ObjectMeta: objectMeta("data", 1), Spec: seedv1alpha1.DemoVolumeSpec{Size: 2, Backup: &seedv1alpha1.DemoVolumeBackup{}},
				Status: seedv1alpha1.DemoVolumeStatus{ClaimName: "data", Phase: corev1.ClaimBound, Capacity: "2Gi",
					Usage:      &seedv1alpha1.DemoVolumeUsage{Used: "1536Mi", Capacity: "2Gi", Percent: 75, Time: ago(time.Minute)},
					LastGrowth: &seedv1alpha1.DemoVolumeGrowth{From: "1Gi", To: "2Gi", Time: ago(20 * time.Minute)},
					Backups: []seedv1alpha1.DemoVolumeBackupStatus{
						{Name: "data-request-6b86b273ff", ReadyToUse: false},
						{Name: "data-20261129-110000", ReadyToUse: true, Size: "2Gi"},
					},
					Conditions: ready(metav1.ConditionTrue, "Bound", "Claim data is bound", 1)}},
			{ObjectMeta: objectMeta("copy", 1), Spec: seedv1alpha1.DemoVolumeSpec{Size: 1, Backup: &seedv1alpha1.DemoVolumeBackup{}},
				Status: seedv1alpha1.DemoVolumeStatus{Conditions: ready(metav1.ConditionFalse, "BackupNotReady", "Backup data-request-6b86b273ff is not ready to restore from yet", 1)}},
			{ObjectMeta: objectMeta("restored", 1), Spec: seedv1alpha1.DemoVolumeSpec{Size: 2},
				Status: seedv1alpha1.DemoVolumeStatus{ClaimName: "restored", Phase: corev1.ClaimBound, Capacity: "2Gi", RestoredFrom: "data-20261129-110000",
					Conditions: ready(metav1.ConditionTrue, "Bound", "Claim restored is bound", 1)}},
		}},
	}
}

func everyStateReport() Overview {
	report := Overview{Operator: Operator{Namespace: "seed-operator-system", Image: "registry.local/seed-operator:0.3.2", Version: "0.3.2",
		Replicas: 2, ReadyReplicas: 2, Leader: "seed-operator-controller-manager-7d9f8-abcde",
		MetricsService: "seed-operator-controller-manager-metrics-service",
		Monitoring:     []string{"ServiceMonitor seed-operator-controller-manager-metrics-monitor", "PrometheusRule seed-operator-controller-manager-rules"}}}
	for i, list := range everyState() {
		report.Resources = append(report.Resources, kinds[i].resources(list)...)
	}
	event := func(kind, name, reason, note string, at time.Duration, count int32) eventsv1.Event {
		e := eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: ago(time.Hour)},
			Type:       corev1.EventTypeWarning, Reason: reason, Note: note, EventTime: metav1.NewMicroTime(now.Add(-at)),
			Regarding: corev1.ObjectReference{Kind: kind, Namespace: "shop", Name: name},
		}
		if count > 1 {
			e.Series = &eventsv1.EventSeries{Count: count, LastObservedTime: metav1.NewMicroTime(now.Add(-at))}
		}
		return e
	}
	report.Warnings = warnings([]eventsv1.Event{
		event("WebServer", "shop", seedv1alpha1.ReasonRolledBack, "Rolled Deployment shop back from nginx:broken to nginx:1.28", 10*time.Minute, 1),
		event("ImmortalContainer", "crashing", "BackingOff", "Pod crashing-q9w1z exited 1", time.Minute, 9),
		event("Pod", "crashing-q9w1z", "BackOff", "not a seed-operator resource: left out", 0, 1),
		{Type: corev1.EventTypeNormal, Reason: "Created", Regarding: corev1.ObjectReference{Kind: "WebServer", Namespace: "shop", Name: "web"}},
	}, report.Resources)
	return report
}

func TestStatusGolden(t *testing.T) {
	report := everyStateReport()
	expectGoldens(t, []golden{
		{file: "status.txt", write: func(out *bytes.Buffer) error { return report.Write(out, now, false, false) }},
		{file: "status-all-namespaces.txt", write: func(out *bytes.Buffer) error {
			r := report
			r.Resources, r.Warnings = r.Resources[:2], nil
			r.Unread = []string{"events: not allowed", "the operator's Deployment in namespace seed-operator-system: not allowed",
				"the operator's Lease in namespace seed-operator-system: not allowed"}
			r.Operator = Operator{Namespace: "seed-operator-system"}
			return r.Write(out, now, true, false)
		}},
		{file: "status.json", write: func(out *bytes.Buffer) error {
			r := report
			r.Resources = r.Resources[len(r.Resources)-3:]
			encoded, err := json.MarshalIndent(r, "", "  ")
			out.Write(append(encoded, '\n'))
			return err
		}},
		{file: "status-colour.txt", write: func(out *bytes.Buffer) error {
			var plain bytes.Buffer
			if err := report.Write(&plain, now, false, false); err != nil {
				return err
			}
			if err := report.Write(out, now, false, true); err != nil {
				return err
			}
			if visible := regexp.MustCompile("\x1b\\[[0-9]+m").ReplaceAllString(out.String(), ""); visible != plain.String() {
				t.Errorf("coloured, the table reads otherwise than plain:\n%s", visible)
			}
			return nil
		}},
		{file: "status-empty.txt", write: func(out *bytes.Buffer) error { return Overview{}.Write(out, now, false, false) }},
	})
}

func TestRolloutGolden(t *testing.T) {
	lists := everyState()
	servers := lists[3].(*seedv1alpha1.WebServerList).Items
	rolledBack := &servers[1]
	replicaSet := func(revision, image string, pods, ready int32, created time.Duration) appsv1.ReplicaSet {
		rs := appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{revisionAnnotation: revision}, CreationTimestamp: ago(created)}}
		rs.Spec.Template.Spec.Containers = []corev1.Container{{Image: image}}
		rs.Status.Replicas, rs.Status.ReadyReplicas = pods, ready
		return rs
	}
	expectGoldens(t, []golden{
		{file: "rollout-status.txt", write: func(out *bytes.Buffer) error { return writeRollout(out, rolledBack) }},
		{file: "rollout-status-available.txt", write: func(out *bytes.Buffer) error { return writeRollout(out, &servers[0]) }},
		{file: "rollout-history.txt", write: func(out *bytes.Buffer) error {
			return writeHistory(out, rolledBack, []appsv1.ReplicaSet{
				replicaSet("3", "nginx:1.28", 2, 2, 10*time.Minute),
				replicaSet("2", "nginx:broken", 0, 0, 20*time.Minute),
			}, now)
		}},
	})
}

func TestResourceName(t *testing.T) {
	for _, tt := range []struct {
		of        oneOf
		arg, want string
		fails     bool
	}{
		{of: demoVolumes, arg: "data", want: "data"},
		{of: demoVolumes, arg: "dv/data", want: "data"},
		{of: demoVolumes, arg: "DemoVolumes/data", want: "data"},
		{of: demoVolumes, arg: "demovolume.seed.example.com/data", want: "data"},
		{of: demoVolumes, arg: "ws/data", fails: true},
		{of: demoVolumes, arg: "dv/", fails: true},
		{of: webServers, arg: "ws/web", want: "web"},
		{of: webServers, arg: "dv/web", fails: true},
	} {
		got, err := tt.of.name(tt.arg)
		if got != tt.want || (err != nil) != tt.fails {
			t.Errorf("%s name %s = %q, %v; want %q, failing %v", tt.of.kind, tt.arg, got, err, tt.want, tt.fails)
		}
	}
}

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"registry.local/seed-operator:0.3.2":                    "0.3.2",
		"198.18.0.1:15000/seed-operator:v0.3.2@sha256:053b69a5": "v0.3.2",
		"198.18.0.1:15000/seed-operator@sha256:053b69a5":        "",
		"seed-operator": "",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%s) = %q, want %q", image, got, want)
		}
	}
}
