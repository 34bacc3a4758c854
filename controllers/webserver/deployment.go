package webserver

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// kind is the app.kubernetes.io/name of everything a WebServer owns.
	kind = "webserver"

	containerName = "nginx"
	// preStopSeconds is how long a stopping pod keeps serving, for the
	// Service to stop sending it requests (kube-proxy takes about a second).
	preStopSeconds = 5
	portName       = "http"
	tmpVolume      = "tmp"
)

var gvk = seedv1alpha1.GroupVersion.WithKind("WebServer")

// desiredDeployment is the Deployment that runs a WebServer's pods.
func desiredDeployment(ws *seedv1alpha1.WebServer) *appsv1ac.DeploymentApplyConfiguration {
	labels := kube.Labels(kind, ws.Name)
	return appsv1ac.Deployment(ws.Name, ws.Namespace).
		WithLabels(labels).
		WithOwnerReferences(kube.ControllerReference(ws, gvk)).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(ws.DesiredReplicas()).
			WithProgressDeadlineSeconds(ws.ProgressDeadlineSeconds()).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(kube.SelectorLabels(kind, ws.Name))).
			// New pods become ready before old ones go, so an image upgrade
			// never lowers the serving capacity.
			WithStrategy(appsv1ac.DeploymentStrategy().
				WithType(appsv1.RollingUpdateDeploymentStrategyType).
				WithRollingUpdate(appsv1ac.RollingUpdateDeployment().
					WithMaxUnavailable(intstr.FromInt32(0)).
					WithMaxSurge(intstr.FromString("25%")))).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(labels).
				WithSpec(podSpec(ws))))
}

// podSpec runs nginx under the restricted Pod Security Standard: not root,
// no privilege escalation, no capabilities, the runtime's seccomp profile,
// and a read-only root file system with a writable /tmp for nginx's pid
// file and caches.
func podSpec(ws *seedv1alpha1.WebServer) *corev1ac.PodSpecApplyConfiguration {
	container := corev1ac.Container().
		WithName(containerName).
		WithImage(podImage(ws)).
		WithPorts(corev1ac.ContainerPort().
			WithName(portName).
			WithContainerPort(ws.Spec.ContainerPort).
			WithProtocol(corev1.ProtocolTCP)).
		WithReadinessProbe(corev1ac.Probe().
			WithTCPSocket(corev1ac.TCPSocketAction().WithPort(intstr.FromString(portName))).
			WithPeriodSeconds(5)).
		// The pod keeps serving while its endpoint is taken out of the
		// Service; only then is nginx told to stop. Without the wait, a
		// rollout refuses the requests that reach a pod already stopping.
		WithLifecycle(corev1ac.Lifecycle().WithPreStop(corev1ac.LifecycleHandler().
			WithSleep(corev1ac.SleepAction().WithSeconds(preStopSeconds)))).
		WithSecurityContext(kube.RestrictedSecurityContext().WithReadOnlyRootFilesystem(true)).
		WithVolumeMounts(corev1ac.VolumeMount().WithName(tmpVolume).WithMountPath("/tmp"))
	if resources := kube.ResourceRequirements(ws.Spec.Resources); resources != nil {
		container.WithResources(resources)
	}

	return corev1ac.PodSpec().
		WithAutomountServiceAccountToken(false).
		WithSecurityContext(kube.RestrictedPodSecurityContext()).
		WithContainers(container).
		WithVolumes(corev1ac.Volume().
			WithName(tmpVolume).
			WithEmptyDir(corev1ac.EmptyDirVolumeSource()))
}
