package webserver

import (
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// Reasons of the WebServer's conditions, beside those copied from the
// Deployment.
const (
	reasonAwaitingDeployment = "AwaitingDeployment"
	reasonRollingOut         = "RollingOut"
	reasonPodsNotReady       = "PodsNotReady"
	reasonPodsFailing        = "PodsFailing"
	reasonReady              = "Ready"
	reasonScaledToZero       = "ScaledToZero"
	reasonAwaitingAutoscaler = "AwaitingAutoscaler"
	reasonWithinRange        = "WithinRange"
)

// firstStatusGrace is how long a new WebServer's first status waits for
// the Deployment controller to report the Deployment just made ready. A
// new WebServer then gets one status write, Ready, where it got two or
// three (awaiting the Deployment, pods not ready, then Ready): its pods
// are mostly ready within seconds, in a burst of creations too. After the
// grace the status says what the Deployment controller last reported, or
// that it is awaited.
const firstStatusGrace = 5 * time.Second

// rollingOut are the reasons of the Ready condition a new Deployment
// passes through on its way to ready; any other is worth writing at once.
var rollingOut = []string{reasonAwaitingDeployment, reasonRollingOut, reasonPodsNotReady}

// untilFirstStatus is how much longer a new WebServer's first status, ws's
// as computeStatus made it from deployment, waits for the Deployment to be
// ready: zero once original (the WebServer as read) has a status, once ws
// is Ready or says why it cannot be, or once the grace from the
// Deployment's creation is over. The creation time is the API server's
// clock, so the wait is never longer than the grace, however far behind
// the operator's clock is.
func untilFirstStatus(original, ws *seedv1alpha1.WebServer, deployment *appsv1.Deployment, now time.Time) time.Duration {
	ready := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady)
	if original.Status.ObservedGeneration != 0 || deployment.CreationTimestamp.IsZero() ||
		ready == nil || !slices.Contains(rollingOut, ready.Reason) {
		return 0
	}
	return min(firstStatusGrace, max(0, deployment.CreationTimestamp.Add(firstStatusGrace).Sub(now)))
}

// computeStatus rebuilds a WebServer's status from its Deployment and
// autoscaler, as the API server last returned them, from its pods, and
// from the error of applying the owned objects.
func computeStatus(
	ws *seedv1alpha1.WebServer, deployment *appsv1.Deployment, autoscaler *autoscalingv2.HorizontalPodAutoscaler, pods []corev1.Pod, applyErr error,
) {
	ws.Status.ObservedGeneration = ws.Generation
	ws.Status.Selector = labels.SelectorFromSet(kube.SelectorLabels(kind, ws.Name)).String()
	ws.Status.Replicas = deployment.Status.Replicas
	ws.Status.ReadyReplicas = deployment.Status.ReadyReplicas
	ws.Status.UpdatedReplicas = deployment.Status.UpdatedReplicas

	// A rollback holds only while the spec asks for the image it took back.
	if rb := ws.Status.Rollback; rb != nil && rb.Image != ws.Spec.Image {
		ws.Status.Rollback = nil
	}

	setFromDeployment(ws, seedv1alpha1.WebServerAvailable, deployment, appsv1.DeploymentAvailable)
	setFromDeployment(ws, seedv1alpha1.WebServerProgressing, deployment, appsv1.DeploymentProgressing)
	setReady(ws, deployment, podProblem(pods), applyErr)
	setAutoscaling(ws, autoscaler)
	if ready := meta.FindStatusCondition(ws.Status.Conditions, seedv1alpha1.ConditionReady); ready.Reason == reasonReady {
		ws.Status.LastAvailableImage = podImage(ws)
	}
}

// rolledBackMessage says which image did not roll out, why, and which
// image the pods went back to.
func rolledBackMessage(ws *seedv1alpha1.WebServer, rb *seedv1alpha1.WebServerRollback) string {
	return fmt.Sprintf("Image %s did not roll out within %ds, so the pods went back to %s: %s", rb.Image, ws.ProgressDeadlineSeconds(), rb.To, rb.Reason)
}

// setFromDeployment copies one of the Deployment's conditions, which the
// Deployment controller keeps, onto the WebServer.
func setFromDeployment(ws *seedv1alpha1.WebServer, conditionType string, deployment *appsv1.Deployment, from appsv1.DeploymentConditionType) {
	for _, c := range deployment.Status.Conditions {
		if c.Type == from {
			kube.SetCondition(ws, conditionType, metav1.ConditionStatus(c.Status), c.Reason, c.Message)
			return
		}
	}
	kube.SetCondition(ws, conditionType, metav1.ConditionUnknown, reasonAwaitingDeployment,
		"The Deployment controller has not reported on the Deployment yet")
}

// setAutoscaling copies what the autoscaler last saw and decided, and says
// whether it is held at maxReplicas with the CPU still above its target:
// the autoscaler's ScalingLimited with reason TooManyReplicas. Without
// spec.autoscaling, both go.
func setAutoscaling(ws *seedv1alpha1.WebServer, autoscaler *autoscalingv2.HorizontalPodAutoscaler) {
	if ws.Spec.Autoscaling == nil {
		ws.Status.Autoscaling = nil
		meta.RemoveStatusCondition(&ws.Status.Conditions, seedv1alpha1.WebServerScalingLimited)
		return
	}
	got := autoscaler.Status
	ws.Status.Autoscaling = &seedv1alpha1.WebServerAutoscalingStatus{
		CurrentReplicas: got.CurrentReplicas,
		DesiredReplicas: got.DesiredReplicas,
		LastScaleTime:   got.LastScaleTime,
	}
	for _, m := range got.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU {
			ws.Status.Autoscaling.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
		}
	}
	for _, c := range got.Conditions {
		if c.Type != autoscalingv2.ScalingLimited {
			continue
		}
		if c.Status == corev1.ConditionTrue && c.Reason == seedv1alpha1.ReasonTooManyReplicas {
			kube.SetCondition(ws, seedv1alpha1.WebServerScalingLimited, metav1.ConditionTrue, c.Reason, c.Message)
		} else {
			a := ws.Spec.Autoscaling
			kube.SetCondition(ws, seedv1alpha1.WebServerScalingLimited, metav1.ConditionFalse, reasonWithinRange,
				fmt.Sprintf("The autoscaler runs %d pods, within %d to %d", got.DesiredReplicas, a.MinReplicasOrDefault(), a.MaxReplicas))
		}
		return
	}
	kube.SetCondition(ws, seedv1alpha1.WebServerScalingLimited, metav1.ConditionUnknown, reasonAwaitingAutoscaler,
		"The autoscaler has not reported yet")
}

// setReady is true when every pod the spec asks for runs the current
// template and is ready, and no old pod is left, nor still counted ready.
// While it is not, a pod that cannot run says why.
func setReady(ws *seedv1alpha1.WebServer, deployment *appsv1.Deployment, problem string, applyErr error) {
	want := ws.DesiredReplicas()
	got := deployment.Status
	switch {
	case applyErr != nil:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, apply.FailureReason(applyErr), applyErr.Error())
	case activeRollback(ws) != nil:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, seedv1alpha1.ReasonRolledBack, rolledBackMessage(ws, activeRollback(ws)))
	case got.ObservedGeneration < deployment.Generation:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonAwaitingDeployment,
			fmt.Sprintf("The Deployment controller has not yet seen generation %d of the Deployment", deployment.Generation))
	case problem != "" && (got.ReadyReplicas < want || got.UpdatedReplicas < want):
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonPodsFailing,
			fmt.Sprintf("%d of %d pods are ready; %s", got.ReadyReplicas, want, problem))
	case got.UpdatedReplicas < want || got.Replicas > want || got.ReadyReplicas > want:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonRollingOut,
			fmt.Sprintf("%d of %d pods run the current template; %d pods in all, %d ready", got.UpdatedReplicas, want, got.Replicas, got.ReadyReplicas))
	case got.ReadyReplicas < want:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionFalse, reasonPodsNotReady,
			fmt.Sprintf("%d of %d pods are ready", got.ReadyReplicas, want))
	case want == 0:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonScaledToZero, "Scaled to zero replicas")
	default:
		kube.SetCondition(ws, seedv1alpha1.ConditionReady, metav1.ConditionTrue, reasonReady,
			fmt.Sprintf("%d of %d pods are ready", got.ReadyReplicas, want))
	}
}
