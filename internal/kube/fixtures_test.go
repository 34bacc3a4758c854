package kube

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// testDeployment is a Deployment as a WebServer's: granular and atomic
// fields, keyed lists, and an empty volume source that is applied only to
// be there.
func testDeployment(image string) *appsv1ac.DeploymentApplyConfiguration {
	return appsv1ac.Deployment("web", "ns").
		WithLabels(map[string]string{"app": "a"}).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(2).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "a"})).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(map[string]string{"app": "a"}).
				WithSpec(corev1ac.PodSpec().
					WithSecurityContext(RestrictedPodSecurityContext()).
					WithContainers(corev1ac.Container().
						WithName("nginx").
						WithImage(image).
						WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(8080).WithProtocol(corev1.ProtocolTCP)).
						WithReadinessProbe(corev1ac.Probe().
							WithTCPSocket(corev1ac.TCPSocketAction().WithPort(intstr.FromString("http"))).
							WithPeriodSeconds(5)).
						WithSecurityContext(RestrictedSecurityContext().WithReadOnlyRootFilesystem(true)).
						WithVolumeMounts(corev1ac.VolumeMount().WithName("tmp").WithMountPath("/tmp"))).
					WithVolumes(corev1ac.Volume().WithName("tmp").WithEmptyDir(corev1ac.EmptyDirVolumeSource())))))
}

// appliedObject is the Deployment as the API server keeps it once the
// operator applied config, with the entry the apply leaves.
func appliedObject(tb testing.TB, config ApplyConfiguration, annotations map[string]string) *appsv1.Deployment {
	tb.Helper()
	d := &appsv1.Deployment{}
	applyTo(tb, config, d)
	d.Annotations = annotations
	d.Status = appsv1.DeploymentStatus{ReadyReplicas: 2}
	return d
}

// applyTo makes obj what config applies, with the managed-fields entry the
// operator's apply leaves, and no kind, as the cache's objects have.
func applyTo(tb testing.TB, config ApplyConfiguration, obj client.Object) {
	tb.Helper()
	want, err := typedDesired(config)
	if err != nil {
		tb.Fatal(err)
	}
	fields, err := want.fields.Difference(identityFields).ToJSON()
	if err != nil {
		tb.Fatal(err)
	}
	if err := remarshal(config, obj); err != nil {
		tb.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(fields)),
	}})
}
