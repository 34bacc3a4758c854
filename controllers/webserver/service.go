package webserver

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

// serviceName is the name of the Service in front of a WebServer's pods.
func serviceName(ws *seedv1alpha1.WebServer) string {
	return ws.Name + "-service"
}

// desiredService exposes a WebServer's pods on spec.port.
func desiredService(ws *seedv1alpha1.WebServer) *corev1ac.ServiceApplyConfiguration {
	port := corev1ac.ServicePort().
		WithName(portName).
		WithProtocol(corev1.ProtocolTCP).
		WithPort(ws.Spec.Port).
		WithTargetPort(intstr.FromString(portName))
	if ws.Spec.NodePort != nil {
		port.WithNodePort(*ws.Spec.NodePort)
	}

	return corev1ac.Service(serviceName(ws), ws.Namespace).
		WithLabels(kube.Labels(kind, ws.Name)).
		WithOwnerReferences(kube.ControllerReference(ws, gvk)).
		WithSpec(corev1ac.ServiceSpec().
			WithType(ws.Spec.ServiceType).
			WithSelector(kube.SelectorLabels(kind, ws.Name)).
			WithPorts(port))
}
