package webserver

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// desiredAutoscaler scales a WebServer on its pods' CPU, as
// spec.autoscaling says. It targets the WebServer's scale subresource, not
// the Deployment: spec.replicas stays the one count of pods, which the
// operator alone copies to the Deployment, so the two never write the
// same field.
func desiredAutoscaler(ws *seedv1alpha1.WebServer) *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration {
	a := ws.Spec.Autoscaling
	cpu := autoscalingv2ac.MetricSpec().
		WithType(autoscalingv2.ResourceMetricSourceType).
		WithResource(autoscalingv2ac.ResourceMetricSource().
			WithName(corev1.ResourceCPU).
			WithTarget(autoscalingv2ac.MetricTarget().
				WithType(autoscalingv2.UtilizationMetricType).
				WithAverageUtilization(a.TargetCPU())))
	spec := autoscalingv2ac.HorizontalPodAutoscalerSpec().
		WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
			WithAPIVersion(gvk.GroupVersion().String()).
			WithKind(gvk.Kind).
			WithName(ws.Name)).
		WithMinReplicas(a.MinReplicasOrDefault()).
		WithMaxReplicas(a.MaxReplicas).
		WithMetrics(cpu)
	if b := a.Behavior; b != nil {
		behavior := autoscalingv2ac.HorizontalPodAutoscalerBehavior()
		if b.ScaleUp != nil {
			behavior.WithScaleUp(scalingRules(b.ScaleUp))
		}
		if b.ScaleDown != nil {
			behavior.WithScaleDown(scalingRules(b.ScaleDown))
		}
		spec.WithBehavior(behavior)
	}

	return autoscalingv2ac.HorizontalPodAutoscaler(ws.Name, ws.Namespace).
		WithLabels(kube.Labels(kind, ws.Name)).
		WithOwnerReferences(kube.ControllerReference(ws, gvk)).
		WithSpec(spec)
}

// scalingRules is the apply configuration of the rules of one direction,
// field for field.
func scalingRules(r *seedv1alpha1.WebServerScalingRules) *autoscalingv2ac.HPAScalingRulesApplyConfiguration {
	rules := autoscalingv2ac.HPAScalingRules()
	if r.StabilizationWindowSeconds != nil {
		rules.WithStabilizationWindowSeconds(*r.StabilizationWindowSeconds)
	}
	if r.SelectPolicy != nil {
		rules.WithSelectPolicy(*r.SelectPolicy)
	}
	for _, p := range r.Policies {
		rules.WithPolicies(autoscalingv2ac.HPAScalingPolicy().
			WithType(p.Type).
			WithValue(p.Value).
			WithPeriodSeconds(p.PeriodSeconds))
	}
	return rules
}
