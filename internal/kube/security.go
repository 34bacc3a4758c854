package kube

import (
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// RestrictedPodSecurityContext is what the restricted Pod Security Standard
// asks of a pod: not root, and the container runtime's seccomp profile.
// Images whose default user is root also need a user set (WithRunAsUser).
func RestrictedPodSecurityContext() *corev1ac.PodSecurityContextApplyConfiguration {
	return corev1ac.PodSecurityContext().
		WithRunAsNonRoot(true).
		WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))
}

// RestrictedSecurityContext is what the restricted Pod Security Standard
// asks of a container: no privilege escalation and no capabilities.
func RestrictedSecurityContext() *corev1ac.SecurityContextApplyConfiguration {
	return corev1ac.SecurityContext().
		WithAllowPrivilegeEscalation(false).
		WithCapabilities(corev1ac.Capabilities().WithDrop("ALL"))
}

// ResourceRequirements is nil when none are asked for, so the operator
// claims no ownership of the field and a LimitRange's defaults stay.
func ResourceRequirements(r corev1.ResourceRequirements) *corev1ac.ResourceRequirementsApplyConfiguration {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return nil
	}
	ac := corev1ac.ResourceRequirements()
	if len(r.Requests) > 0 {
		ac.WithRequests(r.Requests)
	}
	if len(r.Limits) > 0 {
		ac.WithLimits(r.Limits)
	}
	return ac
}
