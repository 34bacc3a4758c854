package webserver

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// FuzzDesiredObjects builds the Deployment, the Service and the status of
// every WebServer the API server admits, and checks that the API server
// accepts what the operator would apply.
func FuzzDesiredObjects(f *testing.F) {
	c := testenv.FuzzClient(f)
	f.Add("web", int32(1), "", int32(0), int32(0), "ClusterIP", int32(0), "", "", "")
	f.Add("web", int32(3), "nginx:1.29", int32(8080), int32(80), "NodePort", int32(30080), "100m", "200m", "64Mi")
	f.Add("w-1", int32(0), "registry.local:5000/nginx@sha256:0123", int32(65535), int32(1), "LoadBalancer", int32(0), "1", "1", "1Gi")
	f.Fuzz(func(t *testing.T, name string, replicas int32, image string, containerPort, port int32, serviceType string,
		nodePort int32, cpuRequest, cpuLimit, memory string,
	) {
		ws := &seedv1alpha1.WebServer{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testenv.FuzzNamespace},
			Spec: seedv1alpha1.WebServerSpec{
				Replicas:      &replicas,
				Image:         image,
				ContainerPort: containerPort,
				Port:          port,
				ServiceType:   corev1.ServiceType(serviceType),
				Resources: corev1.ResourceRequirements{
					Requests: testenv.Quantities(map[corev1.ResourceName]string{corev1.ResourceCPU: cpuRequest, corev1.ResourceMemory: memory}),
					Limits:   testenv.Quantities(map[corev1.ResourceName]string{corev1.ResourceCPU: cpuLimit, corev1.ResourceMemory: memory}),
				},
			},
		}
		if nodePort != 0 {
			ws.Spec.NodePort = &nodePort
		}
		if !testenv.Admitted(t, c, ws) {
			return
		}
		testenv.ExpectAccepted(t, c, desiredDeployment(ws))
		testenv.ExpectAccepted(t, c, desiredService(ws))
		computeStatus(ws, &appsv1.Deployment{}, &autoscalingv2.HorizontalPodAutoscaler{}, nil, nil)
	})
}
