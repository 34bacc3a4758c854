package webserver

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

func TestDesiredDeployment(t *testing.T) {
	tests := []struct {
		name  string
		ws    *seedv1alpha1.WebServer
		check func(g Gomega, c *corev1ac.ContainerApplyConfiguration)
		want  int32
	}{
		{
			name: "defaults",
			ws:   newWebServer(),
			want: 1,
			check: func(g Gomega, c *corev1ac.ContainerApplyConfiguration) {
				g.Expect(c.Image).To(HaveValue(Equal(seedv1alpha1.DefaultWebServerImage)))
				g.Expect(c.Ports).To(HaveLen(1))
				g.Expect(c.Ports[0].ContainerPort).To(HaveValue(BeEquivalentTo(8080)))
				g.Expect(c.Resources).To(BeNil(), "no resources asked for, so none are owned")
			},
		},
		{
			name: "scaled, upgraded and listening elsewhere",
			ws: newWebServer(func(ws *seedv1alpha1.WebServer) {
				ws.Spec.Replicas = ptr.To[int32](5)
				ws.Spec.Image = "registry.example.com/nginx:2"
				ws.Spec.ContainerPort = 9090
			}),
			want: 5,
			check: func(g Gomega, c *corev1ac.ContainerApplyConfiguration) {
				g.Expect(c.Image).To(HaveValue(Equal("registry.example.com/nginx:2")))
				g.Expect(c.Ports[0].ContainerPort).To(HaveValue(BeEquivalentTo(9090)))
			},
		},
		{
			name: "scaled to zero",
			ws:   newWebServer(func(ws *seedv1alpha1.WebServer) { ws.Spec.Replicas = ptr.To[int32](0) }),
			want: 0,
		},
		{
			name: "resources",
			ws: newWebServer(func(ws *seedv1alpha1.WebServer) {
				ws.Spec.Resources = corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
				}
			}),
			want: 1,
			check: func(g Gomega, c *corev1ac.ContainerApplyConfiguration) {
				g.Expect(c.Resources).NotTo(BeNil())
				g.Expect(*c.Resources.Requests).To(HaveKeyWithValue(corev1.ResourceCPU, resource.MustParse("100m")))
				g.Expect(*c.Resources.Limits).To(HaveKeyWithValue(corev1.ResourceMemory, resource.MustParse("64Mi")))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			d := desiredDeployment(tt.ws)

			g.Expect(d.Name).To(HaveValue(Equal("web")))
			g.Expect(d.Namespace).To(HaveValue(Equal("team-a")), "owned objects live in the WebServer's namespace")
			g.Expect(d.Labels).To(Equal(map[string]string{
				"app.kubernetes.io/name":       "webserver",
				"app.kubernetes.io/instance":   "web",
				"app.kubernetes.io/managed-by": "seed-operator",
			}))
			g.Expect(d.OwnerReferences).To(HaveLen(1))
			g.Expect(d.OwnerReferences[0]).To(testenv.ControllerReference("WebServer", "web", "uid-1"))

			g.Expect(d.Spec.Replicas).To(HaveValue(Equal(tt.want)))
			// The selector is the same for every spec, so an upgrade never
			// needs to change it (it is immutable).
			g.Expect(d.Spec.Selector.MatchLabels).To(Equal(map[string]string{
				"app.kubernetes.io/name":     "webserver",
				"app.kubernetes.io/instance": "web",
			}))
			g.Expect(d.Spec.Template.Labels).To(HaveKeyWithValue("app.kubernetes.io/instance", "web"))
			g.Expect(d.Spec.Strategy.RollingUpdate.MaxUnavailable).To(HaveValue(Equal(intstr.FromInt32(0))))

			pod := d.Spec.Template.Spec
			g.Expect(pod.AutomountServiceAccountToken).To(HaveValue(BeFalse()))
			g.Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
			g.Expect(pod.SecurityContext.SeccompProfile.Type).To(HaveValue(Equal(corev1.SeccompProfileTypeRuntimeDefault)))
			g.Expect(pod.Containers).To(HaveLen(1))
			c := &pod.Containers[0]
			g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
			g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
			g.Expect(c.SecurityContext.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
			g.Expect(c.VolumeMounts).To(ContainElement(HaveField("MountPath", HaveValue(Equal("/tmp")))))
			g.Expect(c.ReadinessProbe.TCPSocket.Port).To(HaveValue(Equal(intstr.FromString("http"))))
			g.Expect(c.Lifecycle.PreStop.Sleep.Seconds).To(HaveValue(BeEquivalentTo(5)), "serves until the Service has let go of it")
			if tt.check != nil {
				tt.check(g, c)
			}
		})
	}
}
