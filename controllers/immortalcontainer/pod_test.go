package immortalcontainer

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

func TestDesiredPod(t *testing.T) {
	tests := []struct {
		name  string
		ic    *seedv1alpha1.ImmortalContainer
		check func(g Gomega, spec *corev1ac.PodSpecApplyConfiguration, c *corev1ac.ContainerApplyConfiguration)
	}{
		{
			name: "only an image",
			ic:   newImmortalContainer(),
			check: func(g Gomega, spec *corev1ac.PodSpecApplyConfiguration, c *corev1ac.ContainerApplyConfiguration) {
				g.Expect(c.Image).To(HaveValue(Equal("registry.example.com/app:1")))
				g.Expect(c.Command).To(BeEmpty())
				g.Expect(c.Args).To(BeEmpty())
				g.Expect(c.Env).To(BeEmpty())
				g.Expect(c.Resources).To(BeNil(), "no resources asked for, so none are owned and a LimitRange's defaults stay")
				g.Expect(spec.SecurityContext.RunAsUser).To(BeNil(), "the image's own user, which must not be root")
			},
		},
		{
			name: "command, args and environment",
			ic: newImmortalContainer(func(ic *seedv1alpha1.ImmortalContainer) {
				ic.Spec.Command = []string{"/bin/sh", "-c"}
				ic.Spec.Args = []string{"echo hello; sleep 3600"}
				ic.Spec.Env = []seedv1alpha1.EnvVar{
					{Name: "GREETING", Value: "hello"},
					{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password", Optional: ptr.To(true),
					}}},
					{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
				}
			}),
			check: func(g Gomega, _ *corev1ac.PodSpecApplyConfiguration, c *corev1ac.ContainerApplyConfiguration) {
				g.Expect(c.Command).To(Equal([]string{"/bin/sh", "-c"}))
				g.Expect(c.Args).To(Equal([]string{"echo hello; sleep 3600"}))
				g.Expect(c.Env).To(HaveLen(3))
				g.Expect(c.Env[0].Name).To(HaveValue(Equal("GREETING")))
				g.Expect(c.Env[0].Value).To(HaveValue(Equal("hello")))
				g.Expect(c.Env[0].ValueFrom).To(BeNil())
				g.Expect(c.Env[1].Name).To(HaveValue(Equal("PASSWORD")))
				g.Expect(c.Env[1].Value).To(BeNil())
				secret := c.Env[1].ValueFrom.SecretKeyRef
				g.Expect(secret.Name).To(HaveValue(Equal("db")))
				g.Expect(secret.Key).To(HaveValue(Equal("password")))
				g.Expect(secret.Optional).To(HaveValue(BeTrue()))
				g.Expect(c.Env[2].ValueFrom.FieldRef.FieldPath).To(HaveValue(Equal("status.podIP")))
			},
		},
		{
			name: "resources",
			ic: newImmortalContainer(func(ic *seedv1alpha1.ImmortalContainer) {
				ic.Spec.Resources = corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
				}
			}),
			check: func(g Gomega, _ *corev1ac.PodSpecApplyConfiguration, c *corev1ac.ContainerApplyConfiguration) {
				g.Expect(c.Resources).NotTo(BeNil())
				g.Expect(*c.Resources.Requests).To(Equal(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}))
				g.Expect(*c.Resources.Limits).To(Equal(corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}))
			},
		},
		{
			name: "a user for an image whose default user is root",
			ic:   newImmortalContainer(func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.RunAsUser = ptr.To[int64](1000) }),
			check: func(g Gomega, spec *corev1ac.PodSpecApplyConfiguration, _ *corev1ac.ContainerApplyConfiguration) {
				g.Expect(spec.SecurityContext.RunAsUser).To(HaveValue(BeEquivalentTo(1000)))
				g.Expect(spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()), "a user does not replace the non-root guard")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			p := desiredPod(tt.ic)

			g.Expect(p.Name).To(HaveValue(Equal("app-immortalpod")))
			g.Expect(p.Namespace).To(HaveValue(Equal("team-a")), "the pod lives in the ImmortalContainer's namespace")
			g.Expect(p.Labels).To(Equal(map[string]string{
				"app.kubernetes.io/name":       "immortalcontainer",
				"app.kubernetes.io/instance":   "app",
				"app.kubernetes.io/managed-by": "seed-operator",
			}))
			g.Expect(p.Annotations).To(HaveKeyWithValue(specHashAnnotation, MatchRegexp(`^[0-9a-f]{16}$`)))
			g.Expect(p.OwnerReferences).To(HaveLen(1))
			g.Expect(p.OwnerReferences[0]).To(testenv.ControllerReference("ImmortalContainer", "app", "uid-1"))

			spec := p.Spec
			// The operator, not the kubelet, restarts the container, so that
			// every start is a new pod it can count.
			g.Expect(spec.RestartPolicy).To(HaveValue(Equal(corev1.RestartPolicyNever)))
			g.Expect(spec.AutomountServiceAccountToken).To(HaveValue(BeFalse()))
			g.Expect(spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
			g.Expect(spec.SecurityContext.SeccompProfile.Type).To(HaveValue(Equal(corev1.SeccompProfileTypeRuntimeDefault)))
			g.Expect(spec.Containers).To(HaveLen(1))
			c := &spec.Containers[0]
			g.Expect(c.Name).To(HaveValue(Equal("immortal")))
			g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
			g.Expect(c.SecurityContext.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
			tt.check(g, spec, c)
		})
	}
}

func TestSpecHash(t *testing.T) {
	hashOf := func(mutate ...func(*seedv1alpha1.ImmortalContainer)) string {
		return desiredPod(newImmortalContainer(mutate...)).Annotations[specHashAnnotation]
	}
	base := hashOf()

	tests := []struct {
		name        string
		mutate      func(*seedv1alpha1.ImmortalContainer)
		wantChanged bool
	}{
		{name: "the same spec", mutate: func(*seedv1alpha1.ImmortalContainer) {}},
		{
			name: "a change outside the spec",
			mutate: func(ic *seedv1alpha1.ImmortalContainer) {
				ic.Labels = map[string]string{"team": "a"}
				ic.Status.PodsStarted = 3
			},
		},
		{
			name:        "a new image",
			mutate:      func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.Image = "registry.example.com/app:2" },
			wantChanged: true,
		},
		{
			name:        "a command",
			mutate:      func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.Command = []string{"/app"} },
			wantChanged: true,
		},
		{
			name:        "args",
			mutate:      func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.Args = []string{"--verbose"} },
			wantChanged: true,
		},
		{
			name:        "an environment variable",
			mutate:      func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.Env = []seedv1alpha1.EnvVar{{Name: "A", Value: "1"}} },
			wantChanged: true,
		},
		{
			name: "resources",
			mutate: func(ic *seedv1alpha1.ImmortalContainer) {
				ic.Spec.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}
			},
			wantChanged: true,
		},
		{
			name:        "a user",
			mutate:      func(ic *seedv1alpha1.ImmortalContainer) { ic.Spec.RunAsUser = ptr.To[int64](1000) },
			wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			hash := hashOf(tt.mutate)
			g.Expect(hash).To(Equal(hashOf(tt.mutate)), "the hash of one spec is stable")
			if tt.wantChanged {
				g.Expect(hash).NotTo(Equal(base))
			} else {
				g.Expect(hash).To(Equal(base))
			}
		})
	}

	t.Run("an environment variable's value", func(t *testing.T) {
		g := NewWithT(t)
		env := func(value string) func(*seedv1alpha1.ImmortalContainer) {
			return func(ic *seedv1alpha1.ImmortalContainer) {
				ic.Spec.Env = []seedv1alpha1.EnvVar{{Name: "A", Value: value}}
			}
		}
		g.Expect(hashOf(env("1"))).NotTo(Equal(hashOf(env("2"))))
	})
}
