package immortalcontainer

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// FuzzDesiredPod builds the pod and the status of every ImmortalContainer
// the API server admits, and checks that the API server accepts the pod.
func FuzzDesiredPod(f *testing.F) {
	c := testenv.FuzzClient(f)
	f.Add("app", "app:1", "", "", "", "", "", "", int64(0))
	f.Add("a", "registry.local/app@sha256:0123", "/app", "--serve $(PORT)", "PORT", "8080", "100m", "64Mi", int64(1000))
	f.Fuzz(func(t *testing.T, name, image, command, arg, envName, envValue, cpu, memory string, runAsUser int64) {
		ic := &seedv1alpha1.ImmortalContainer{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testenv.FuzzNamespace},
			Spec: seedv1alpha1.ImmortalContainerSpec{
				Image: image,
				Resources: corev1.ResourceRequirements{
					Requests: testenv.Quantities(map[corev1.ResourceName]string{corev1.ResourceCPU: cpu, corev1.ResourceMemory: memory}),
				},
			},
		}
		if command != "" {
			ic.Spec.Command = []string{command}
		}
		if arg != "" {
			ic.Spec.Args = []string{arg}
		}
		if envName != "" {
			ic.Spec.Env = []seedv1alpha1.EnvVar{{Name: envName, Value: envValue}}
		}
		if runAsUser != 0 {
			ic.Spec.RunAsUser = &runAsUser
		}
		if !testenv.Admitted(t, c, ic) {
			return
		}
		testenv.ExpectAccepted(t, c, desiredPod(ic))
		computeStatus(ic, &corev1.Pod{}, time.Now(), false, nil)
	})
}
