package webserver

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

func TestDesiredService(t *testing.T) {
	tests := []struct {
		name         string
		ws           *seedv1alpha1.WebServer
		wantType     corev1.ServiceType
		wantPort     int32
		wantNodePort *int32
	}{
		{name: "defaults", ws: newWebServer(), wantType: corev1.ServiceTypeClusterIP, wantPort: 80},
		{
			name:     "node port chosen by Kubernetes",
			ws:       newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.ServiceType = corev1.ServiceTypeNodePort }),
			wantType: corev1.ServiceTypeNodePort,
			wantPort: 80,
		},
		{
			name: "load balancer on a pinned node port",
			ws: newWebServer(func(ws *seedv1alpha1.WebServer) {
				ws.Spec.ServiceType = corev1.ServiceTypeLoadBalancer
				ws.Spec.Port = 8443
				ws.Spec.NodePort = ptr.To[int32](30080)
			}),
			wantType:     corev1.ServiceTypeLoadBalancer,
			wantPort:     8443,
			wantNodePort: ptr.To[int32](30080),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			s := desiredService(tt.ws)

			g.Expect(s.Name).To(HaveValue(Equal("web-service")))
			g.Expect(s.Namespace).To(HaveValue(Equal("team-a")))
			g.Expect(s.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "seed-operator"))
			g.Expect(s.OwnerReferences).To(ConsistOf(HaveField("Controller", HaveValue(BeTrue()))))
			g.Expect(s.Spec.Type).To(HaveValue(Equal(tt.wantType)))
			g.Expect(s.Spec.Selector).To(Equal(map[string]string{
				"app.kubernetes.io/name":     "webserver",
				"app.kubernetes.io/instance": "web",
			}))
			g.Expect(s.Spec.Ports).To(HaveLen(1))
			port := s.Spec.Ports[0]
			g.Expect(port.Port).To(HaveValue(Equal(tt.wantPort)))
			g.Expect(port.TargetPort).To(HaveValue(Equal(intstr.FromString("http"))), "the container port, by name")
			g.Expect(port.NodePort).To(Equal(tt.wantNodePort))
		})
	}
}
