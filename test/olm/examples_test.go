//go:build olm

package olm

import (
	"context"
	"encoding/json"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// examples are the custom resources a CSV offers in alm-examples, which
// OperatorHub's console fills its forms with, in the given namespace.
func examples(csv *operatorsv1alpha1.ClusterServiceVersion, namespace string) []*unstructured.Unstructured {
	var objects []map[string]any
	Expect(json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &objects)).To(Succeed(), "alm-examples of %s", csv.Name)
	Expect(objects).NotTo(BeEmpty(), "alm-examples of %s", csv.Name)
	examples := make([]*unstructured.Unstructured, 0, len(objects))
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: o}
		u.SetNamespace(namespace)
		examples = append(examples, u)
	}
	return examples
}

// createReady creates the objects and waits until each is Ready. A
// DemoVolume's claim binds only once a pod uses it (the local storage class
// waits for a consumer), so a pod mounts it.
func createReady(ctx context.Context, objects ...*unstructured.Unstructured) {
	for _, o := range objects {
		Expect(k8sClient.Create(ctx, o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
		if o.GetKind() == "DemoVolume" {
			consume(ctx, o.GetNamespace(), o.GetName())
		}
	}
	for _, o := range objects {
		expectReady(ctx, o)
	}
}

// expectReady waits until the object's Ready condition is True for its
// current generation.
func expectReady(ctx context.Context, o *unstructured.Unstructured) {
	Eventually(ctx, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
		conditions, _, err := unstructured.NestedSlice(o.Object, "status", "conditions")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(conditions).To(ContainElement(And(
			HaveKeyWithValue("type", "Ready"),
			HaveKeyWithValue("status", "True"),
			HaveKeyWithValue("observedGeneration", BeNumerically("==", o.GetGeneration())),
		)), "%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}).Should(Succeed())
}

// consume runs a pod that mounts the claim, so that it binds.
func consume(ctx context.Context, namespace, claim string) {
	mountClaim(ctx, namespace, claim, "true")
}

// mountClaim runs a pod that mounts the claim at /data and runs command.
func mountClaim(ctx context.Context, namespace, claim, command string) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "consumer-" + claim, Namespace: namespace},
		Spec: corev1.PodSpec{
			RestartPolicy:   corev1.RestartPolicyNever,
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "consumer", Image: "docker.io/library/busybox:1.37.0", Command: []string{"sh", "-c", command},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}}},
		},
	}
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
}

// deleteAll deletes the objects while the operator runs, so that it
// removes its finalizers, and waits until they are gone.
func deleteAll(ctx context.Context, objects []*unstructured.Unstructured) {
	for _, o := range objects {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, o))).To(Succeed())
	}
	for _, o := range objects {
		Eventually(ctx, func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopy()) }).
			Should(MatchError(ContainSubstring("not found")))
	}
}
