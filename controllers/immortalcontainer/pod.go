package immortalcontainer

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// kind is the app.kubernetes.io/name of an ImmortalContainer's pod.
	kind          = "immortalcontainer"
	containerName = "immortal"

	// specHashAnnotation records which spec a pod was started from: most of
	// a pod's spec cannot change, so a new spec means a new pod.
	specHashAnnotation = "seed.example.com/spec-hash"
)

var gvk = seedv1alpha1.GroupVersion.WithKind("ImmortalContainer")

// podName is the name of an ImmortalContainer's pod, the same for every pod
// it starts, so that two can never run at once.
func podName(ic *seedv1alpha1.ImmortalContainer) string {
	return ic.Name + "-immortalpod"
}

// desiredPod is the pod that runs an ImmortalContainer's container, in its
// namespace. It never restarts in place: when it ends, the operator starts a
// new one and counts it.
func desiredPod(ic *seedv1alpha1.ImmortalContainer) *corev1ac.PodApplyConfiguration {
	spec := podSpec(ic)
	return corev1ac.Pod(podName(ic), ic.Namespace).
		WithLabels(kube.Labels(kind, ic.Name)).
		WithAnnotations(map[string]string{specHashAnnotation: specHash(spec)}).
		WithOwnerReferences(kube.ControllerReference(ic, gvk)).
		WithSpec(spec)
}

// podSpec runs the container under the restricted Pod Security Standard.
func podSpec(ic *seedv1alpha1.ImmortalContainer) *corev1ac.PodSpecApplyConfiguration {
	container := corev1ac.Container().
		WithName(containerName).
		WithImage(ic.Spec.Image).
		WithCommand(ic.Spec.Command...).
		WithArgs(ic.Spec.Args...).
		WithSecurityContext(kube.RestrictedSecurityContext())
	for _, env := range ic.Spec.Env {
		container.WithEnv(envVar(env))
	}
	if resources := kube.ResourceRequirements(ic.Spec.Resources); resources != nil {
		container.WithResources(resources)
	}
	security := kube.RestrictedPodSecurityContext()
	if ic.Spec.RunAsUser != nil {
		security.WithRunAsUser(*ic.Spec.RunAsUser)
	}
	return corev1ac.PodSpec().
		WithRestartPolicy(corev1.RestartPolicyNever).
		WithAutomountServiceAccountToken(false).
		WithSecurityContext(security).
		WithContainers(container)
}

// envVar converts an environment variable to its apply configuration through
// JSON, which both share.
func envVar(env seedv1alpha1.EnvVar) *corev1ac.EnvVarApplyConfiguration {
	ac := &corev1ac.EnvVarApplyConfiguration{}
	data, err := json.Marshal(env)
	if err == nil {
		err = json.Unmarshal(data, ac)
	}
	if err != nil {
		// Both types are plain data: this cannot fail.
		panic(fmt.Sprintf("converting env var %q: %v", env.Name, err))
	}
	return ac
}

// specHash identifies a pod spec.
func specHash(spec *corev1ac.PodSpecApplyConfiguration) string {
	data, err := json.Marshal(spec)
	if err != nil {
		panic(fmt.Sprintf("marshalling a pod spec: %v", err))
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return fmt.Sprintf("%016x", h.Sum64())
}
