package webserver

import (
	"testing"

	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestDesiredAutoscaler(t *testing.T) {
	slowDown := &seedv1alpha1.WebServerScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](30),
		SelectPolicy:               ptr.To(autoscalingv2.MinChangePolicySelect),
		Policies: []seedv1alpha1.WebServerScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 50, PeriodSeconds: 60},
		},
	}
	tests := []struct {
		name         string
		autoscaling  seedv1alpha1.WebServerAutoscaling
		wantMin      int32
		wantMax      int32
		wantTarget   int32
		wantBehavior *autoscalingv2ac.HorizontalPodAutoscalerBehaviorApplyConfiguration
	}{
		{
			name:        "defaults where the API server did not default",
			autoscaling: seedv1alpha1.WebServerAutoscaling{MaxReplicas: 5},
			wantMin:     1, wantMax: 5, wantTarget: 80,
		},
		{
			name: "as the spec says",
			autoscaling: seedv1alpha1.WebServerAutoscaling{
				MinReplicas: ptr.To[int32](2), MaxReplicas: 10, TargetCPUUtilizationPercentage: ptr.To[int32](30),
			},
			wantMin: 2, wantMax: 10, wantTarget: 30,
		},
		{
			name: "behavior of one direction, field for field",
			autoscaling: seedv1alpha1.WebServerAutoscaling{
				MaxReplicas: 4, Behavior: &seedv1alpha1.WebServerScalingBehavior{ScaleDown: slowDown},
			},
			wantMin: 1, wantMax: 4, wantTarget: 80,
			wantBehavior: autoscalingv2ac.HorizontalPodAutoscalerBehavior().WithScaleDown(autoscalingv2ac.HPAScalingRules().
				WithStabilizationWindowSeconds(30).
				WithSelectPolicy(autoscalingv2.MinChangePolicySelect).
				WithPolicies(
					autoscalingv2ac.HPAScalingPolicy().WithType(autoscalingv2.PodsScalingPolicy).WithValue(1).WithPeriodSeconds(15),
					autoscalingv2ac.HPAScalingPolicy().WithType(autoscalingv2.PercentScalingPolicy).WithValue(50).WithPeriodSeconds(60),
				)),
		},
		{
			name: "behavior of both directions",
			autoscaling: seedv1alpha1.WebServerAutoscaling{
				MaxReplicas: 4, Behavior: &seedv1alpha1.WebServerScalingBehavior{
					ScaleUp:   &seedv1alpha1.WebServerScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
					ScaleDown: &seedv1alpha1.WebServerScalingRules{StabilizationWindowSeconds: ptr.To[int32](15)},
				},
			},
			wantMin: 1, wantMax: 4, wantTarget: 80,
			wantBehavior: autoscalingv2ac.HorizontalPodAutoscalerBehavior().
				WithScaleUp(autoscalingv2ac.HPAScalingRules().WithStabilizationWindowSeconds(0)).
				WithScaleDown(autoscalingv2ac.HPAScalingRules().WithStabilizationWindowSeconds(15)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ws := newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.Autoscaling = &tt.autoscaling })

			a := desiredAutoscaler(ws)

			g.Expect(a.Name).To(HaveValue(Equal("web")))
			g.Expect(a.Namespace).To(HaveValue(Equal("team-a")))
			g.Expect(a.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
			g.Expect(a.OwnerReferences).To(ConsistOf(HaveField("Controller", HaveValue(BeTrue()))))
			g.Expect(a.Spec.ScaleTargetRef).To(Equal(autoscalingv2ac.CrossVersionObjectReference().
				WithAPIVersion("seed.example.com/v1alpha1").WithKind("WebServer").WithName("web")),
				"the WebServer's scale subresource, not the Deployment")
			g.Expect(a.Spec.MinReplicas).To(HaveValue(Equal(tt.wantMin)))
			g.Expect(a.Spec.MaxReplicas).To(HaveValue(Equal(tt.wantMax)))
			g.Expect(a.Spec.Metrics).To(ConsistOf(*autoscalingv2ac.MetricSpec().
				WithType(autoscalingv2.ResourceMetricSourceType).
				WithResource(autoscalingv2ac.ResourceMetricSource().WithName(corev1.ResourceCPU).
					WithTarget(autoscalingv2ac.MetricTarget().WithType(autoscalingv2.UtilizationMetricType).WithAverageUtilization(tt.wantTarget)))))
			g.Expect(a.Spec.Behavior).To(BeComparableTo(tt.wantBehavior))
		})
	}
}
