package statemetrics

import (
	// The time zones a ScheduledEcho may name, for an image with none.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// The series of every kind, labelled with it.
var (
	resourceReady = kindGauge("seed_resource_ready",
		"Whether the resource's Ready condition is True (1) or not (0), with the condition's reason.", "reason")
	resourceGenerationLag = kindGauge("seed_resource_generation_lag",
		"How many generations of the resource's spec the operator has not yet reported on in its Ready condition.")
)

// resourceSamples are the series every kind has.
func resourceSamples(kind string, obj kube.Object) []sample {
	ready := meta.FindStatusCondition(obj.GetConditions(), seedv1alpha1.ConditionReady)
	var reason string
	var observed int64
	if ready != nil {
		reason, observed = ready.Reason, ready.ObservedGeneration
	}
	return []sample{
		{resourceReady, boolValue(ready != nil && ready.Status == metav1.ConditionTrue), []string{kind, obj.GetNamespace(), obj.GetName(), reason}},
		{resourceGenerationLag, float64(max(obj.GetGeneration()-observed, 0)), []string{kind, obj.GetNamespace(), obj.GetName()}},
	}
}

// named labels a sample of obj's own kind with its namespace and name, and
// the extra labels after them.
func named(obj metav1.Object, m *metric, value float64, extra ...string) sample {
	return sample{m, value, append([]string{obj.GetNamespace(), obj.GetName()}, extra...)}
}

// at is the sample of a time, in seconds since the epoch as Prometheus
// keeps times, when it is set.
func at(obj metav1.Object, m *metric, t *metav1.Time) []sample {
	if t == nil {
		return nil
	}
	return []sample{named(obj, m, float64(t.UnixNano())/1e9)}
}

var (
	webServerReplicasDesired = gauge("seed_webserver_replicas_desired",
		"The number of nginx pods the WebServer's spec asks for.")
	webServerReplicas = gauge("seed_webserver_replicas",
		"The number of pods the WebServer's Deployment has.")
	webServerReplicasReady = gauge("seed_webserver_replicas_ready",
		"The number of the WebServer's pods that are ready to serve.")
	webServerReplicasUpdated = gauge("seed_webserver_replicas_updated",
		"The number of the WebServer's pods that run its current pod template.")
	webServerRolloutInProgress = gauge("seed_webserver_rollout_in_progress",
		"Whether a rollout of the WebServer's Deployment is under way (1) or not (0).")
	webServerRolloutStalled = gauge("seed_webserver_rollout_stalled",
		"Whether the rollout of the WebServer's Deployment has passed its progress deadline (1) or not (0).")
	webServerAutoscalingMin = gauge("seed_webserver_autoscaling_min_replicas",
		"The fewest pods the autoscaler of the WebServer runs, while it has one.")
	webServerAutoscalingMax = gauge("seed_webserver_autoscaling_max_replicas",
		"The most pods the autoscaler of the WebServer runs, while it has one.")
	webServerScalingLimited = gauge("seed_webserver_scaling_limited",
		"Whether the WebServer's autoscaler runs its most pods with the CPU still above target (1) or not (0), while it has one.")
)

// rolloutComplete is the reason the Deployment controller gives its
// Progressing condition, which a WebServer copies, once a rollout is done.
const rolloutComplete = "NewReplicaSetAvailable"

func webServerSamples(ws *seedv1alpha1.WebServer) []sample {
	progressing := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.WebServerProgressing)
	inProgress := progressing != nil && progressing.Status == metav1.ConditionTrue && progressing.Reason != rolloutComplete
	stalled := progressing != nil && progressing.Status == metav1.ConditionFalse && progressing.Reason == seedv1alpha1.ReasonProgressDeadlineExceeded
	samples := []sample{
		named(ws, webServerReplicasDesired, float64(ws.DesiredReplicas())),
		named(ws, webServerReplicas, float64(ws.Status.Replicas)),
		named(ws, webServerReplicasReady, float64(ws.Status.ReadyReplicas)),
		named(ws, webServerReplicasUpdated, float64(ws.Status.UpdatedReplicas)),
		named(ws, webServerRolloutInProgress, boolValue(inProgress)),
		named(ws, webServerRolloutStalled, boolValue(stalled)),
	}
	if a := ws.Spec.Autoscaling; a != nil {
		limited := meta.IsStatusConditionTrue(ws.Status.Conditions, seedv1alpha1.WebServerScalingLimited)
		samples = append(samples,
			named(ws, webServerAutoscalingMin, float64(a.MinReplicasOrDefault())),
			named(ws, webServerAutoscalingMax, float64(a.MaxReplicas)),
			named(ws, webServerScalingLimited, boolValue(limited)))
	}
	return samples
}

var (
	echoPhase = gauge("seed_echo_phase",
		"Whether the Echo's Job is in the phase (1) or not (0).", "phase")
	echoRunDuration = gauge("seed_echo_run_duration_seconds",
		"How long the Echo's Job ran, from its start to its completion, once it has completed.")
)

var echoPhases = []seedv1alpha1.EchoPhase{
	seedv1alpha1.EchoPending, seedv1alpha1.EchoRunning, seedv1alpha1.EchoSucceeded, seedv1alpha1.EchoFailedPhase,
}

func echoSamples(e *seedv1alpha1.Echo) []sample {
	var samples []sample
	for _, phase := range echoPhases {
		samples = append(samples, named(e, echoPhase, boolValue(e.Status.Phase == phase), string(phase)))
	}
	if start, end := e.Status.StartTime, e.Status.CompletionTime; start != nil && end != nil {
		samples = append(samples, named(e, echoRunDuration, end.Sub(start.Time).Seconds()))
	}
	return samples
}

var (
	scheduledEchoLastSchedule = gauge("seed_scheduledecho_last_schedule_time_seconds",
		"When the ScheduledEcho's CronJob last started a run, in seconds since the epoch.")
	scheduledEchoLastSuccess = gauge("seed_scheduledecho_last_successful_time_seconds",
		"When a run of the ScheduledEcho last succeeded, in seconds since the epoch.")
	scheduledEchoActive = gauge("seed_scheduledecho_active_runs",
		"The number of the ScheduledEcho's runs under way.")
	scheduledEchoNextSchedule = gauge("seed_scheduledecho_next_schedule_time_seconds",
		"When the ScheduledEcho's next run is due by its schedule, after its last (or its creation), in seconds since the epoch.")
	scheduledEchoSuspended = gauge("seed_scheduledecho_suspended",
		"Whether the ScheduledEcho is suspended (1) or not (0).")
)

func scheduledEchoSamples(s *seedv1alpha1.ScheduledEcho) []sample {
	samples := []sample{
		named(s, scheduledEchoActive, float64(len(s.Status.Active))),
		named(s, scheduledEchoSuspended, boolValue(s.Spec.Suspend != nil && *s.Spec.Suspend)),
	}
	if next, ok := nextSchedule(s); ok {
		samples = append(samples, at(s, scheduledEchoNextSchedule, &next)...)
	}
	samples = append(samples, at(s, scheduledEchoLastSchedule, s.Status.LastScheduleTime)...)
	return append(samples, at(s, scheduledEchoLastSuccess, s.Status.LastSuccessfulTime)...)
}

// nextSchedule is when s's next run is due, as the CronJob controller
// reckons it: the first time of its schedule, in its time zone, after the
// last run started, or after s was made. It is not known when the
// schedule or the time zone cannot be read, which the API server refuses.
func nextSchedule(s *seedv1alpha1.ScheduledEcho) (metav1.Time, bool) {
	spec := string(s.Spec.Schedule)
	if s.Spec.TimeZone != nil {
		spec = "CRON_TZ=" + *s.Spec.TimeZone + " " + spec
	}
	schedule, err := cron.ParseStandard(spec)
	if err != nil {
		return metav1.Time{}, false
	}
	after := s.CreationTimestamp
	if s.Status.LastScheduleTime != nil {
		after = *s.Status.LastScheduleTime
	}
	return metav1.NewTime(schedule.Next(after.Time)), true
}

var (
	immortalContainerPodStarts = counter("seed_immortalcontainer_pod_starts_total",
		"How many pods the operator has started for the ImmortalContainer.")
	immortalContainerPodStart = gauge("seed_immortalcontainer_pod_start_time_seconds",
		"When the ImmortalContainer's current pod started, in seconds since the epoch.")
	immortalContainerNextStart = gauge("seed_immortalcontainer_next_start_time_seconds",
		"When the operator will start the ImmortalContainer's next pod, backing off from one that failed, in seconds since the epoch.")
)

func immortalContainerSamples(ic *seedv1alpha1.ImmortalContainer) []sample {
	samples := []sample{named(ic, immortalContainerPodStarts, float64(ic.Status.PodsStarted))}
	if n := len(ic.Status.StartTimes); n > 0 {
		samples = append(samples, at(ic, immortalContainerPodStart, &ic.Status.StartTimes[n-1])...)
	}
	return append(samples, at(ic, immortalContainerNextStart, ic.Status.NextStartTime)...)
}

var (
	demoVolumeRequested = gauge("seed_demovolume_requested_bytes",
		"The size the DemoVolume's spec asks for.")
	demoVolumeCapacity = gauge("seed_demovolume_capacity_bytes",
		"The size of the volume bound to the DemoVolume's claim.")
	demoVolumePhase = gauge("seed_demovolume_phase",
		"Whether the DemoVolume's claim is in the phase (1) or not (0).", "phase")
	demoVolumeResizing = gauge("seed_demovolume_resizing",
		"Whether the DemoVolume's claim is growing to a new size (1) or not (0).")
	demoVolumeUsed = gauge("seed_demovolume_used_bytes",
		"The bytes in use on the DemoVolume's volume, as the kubelet last reported them, with autoGrow set.")
	demoVolumeAtMaxSize = gauge("seed_demovolume_at_max_size",
		"Whether autoGrow has grown the DemoVolume to its maxSize and it is still fuller than its threshold (1) or not (0).")
)

var claimPhases = []corev1.PersistentVolumeClaimPhase{corev1.ClaimPending, corev1.ClaimBound, corev1.ClaimLost}

func demoVolumeSamples(dv *seedv1alpha1.DemoVolume) []sample {
	size := dv.SizeQuantity()
	samples := []sample{
		named(dv, demoVolumeRequested, size.AsApproximateFloat64()),
		named(dv, demoVolumeResizing, boolValue(meta.IsStatusConditionTrue(dv.Status.Conditions, seedv1alpha1.DemoVolumeResizing))),
	}
	for _, phase := range claimPhases {
		samples = append(samples, named(dv, demoVolumePhase, boolValue(dv.Status.Phase == phase), string(phase)))
	}
	if capacity, err := resource.ParseQuantity(dv.Status.Capacity); err == nil {
		samples = append(samples, named(dv, demoVolumeCapacity, capacity.AsApproximateFloat64()))
	}
	if dv.Spec.AutoGrow != nil {
		atMax := meta.IsStatusConditionTrue(dv.Status.Conditions, seedv1alpha1.DemoVolumeAtMaxSize)
		samples = append(samples, named(dv, demoVolumeAtMaxSize, boolValue(atMax)))
	}
	if u := dv.Status.Usage; u != nil {
		if used, err := resource.ParseQuantity(u.Used); err == nil {
			samples = append(samples, named(dv, demoVolumeUsed, used.AsApproximateFloat64()))
		}
	}
	return samples
}
