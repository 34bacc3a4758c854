package echo

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
)

func TestLiteral(t *testing.T) {
	tests := []struct {
		message, want string
	}{
		{message: "Hello", want: "Hello"},
		{message: "costs $5", want: "costs $$5"},
		{message: "$(HOME) stays as written", want: "$$(HOME) stays as written"},
		{message: "$$", want: "$$$$"},
		{message: `"quotes" and ; semicolons`, want: `"quotes" and ; semicolons`},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			NewWithT(t).Expect(literal(tt.message)).To(Equal(tt.want))
		})
	}
}

// The pod runs under the restricted Pod Security Standard, whichever kind
// asks for it.
func TestPodTemplateIsRestricted(t *testing.T) {
	g := NewWithT(t)
	tpl := podTemplate(echoKind, "hello", "registry.example.com/tools:1", "Hi $(USER)")

	g.Expect(tpl.Labels).To(Equal(map[string]string{
		"app.kubernetes.io/name": "echo", "app.kubernetes.io/instance": "hello", "app.kubernetes.io/managed-by": "seed-operator",
	}))
	spec := tpl.Spec
	g.Expect(spec.RestartPolicy).To(HaveValue(Equal(corev1.RestartPolicyNever)))
	g.Expect(spec.AutomountServiceAccountToken).To(HaveValue(BeFalse()))
	g.Expect(spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(spec.SecurityContext.RunAsUser).To(HaveValue(BeEquivalentTo(65534)))
	g.Expect(spec.SecurityContext.SeccompProfile.Type).To(HaveValue(Equal(corev1.SeccompProfileTypeRuntimeDefault)))

	g.Expect(spec.Containers).To(HaveLen(1))
	c := spec.Containers[0]
	g.Expect(c.Image).To(HaveValue(Equal("registry.example.com/tools:1")))
	g.Expect(c.Command).To(Equal([]string{"echo"}))
	g.Expect(c.Args).To(Equal([]string{"Hi $$(USER)"}))
	g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
	g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
	g.Expect(c.SecurityContext.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
	g.Expect(*c.Resources.Limits).To(HaveKey(corev1.ResourceMemory), "a runaway echo is bounded")
}
