package echo

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	containerName = "echo"
	// nobody: busybox's default user is root, which the restricted Pod
	// Security Standard does not allow.
	unprivilegedUser = 65534
)

// podTemplate runs `echo message` once, under the restricted Pod Security
// Standard, with a read-only root file system and small fixed resources.
func podTemplate(kind, instance, image, message string) *corev1ac.PodTemplateSpecApplyConfiguration {
	small := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("10m"),
		corev1.ResourceMemory: resource.MustParse("16Mi"),
	}
	return corev1ac.PodTemplateSpec().
		WithLabels(kube.Labels(kind, instance)).
		WithSpec(corev1ac.PodSpec().
			WithRestartPolicy(corev1.RestartPolicyNever).
			WithAutomountServiceAccountToken(false).
			WithSecurityContext(kube.RestrictedPodSecurityContext().
				WithRunAsUser(unprivilegedUser).
				WithRunAsGroup(unprivilegedUser)).
			WithContainers(corev1ac.Container().
				WithName(containerName).
				WithImage(image).
				WithCommand("echo").
				WithArgs(literal(message)).
				WithSecurityContext(kube.RestrictedSecurityContext().WithReadOnlyRootFilesystem(true)).
				WithResources(corev1ac.ResourceRequirements().
					WithRequests(small).
					WithLimits(corev1.ResourceList{corev1.ResourceMemory: small[corev1.ResourceMemory]}))))
}

// literal escapes a message for a container's args, where Kubernetes would
// otherwise expand $(NAME) references, so that the message prints as
// written.
func literal(message string) string {
	return strings.ReplaceAll(message, "$", "$$")
}
