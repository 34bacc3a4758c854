// Package applytest makes objects as the API server keeps them after the
// operator applied them, with the managed-fields entry the apply leaves,
// for tests that need no API server. It works the entry out from the
// apply configuration on its own, apart from package apply, so that a
// mistake there does not hide in the fixture.
package applytest

import (
	"encoding/json"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/applyconfigurations"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// Deployment is a Deployment as a WebServer's: granular and atomic fields,
// keyed lists, and an empty volume source that is applied only to be
// there.
func Deployment(image string) *appsv1ac.DeploymentApplyConfiguration {
	labels := map[string]string{"app": "a"}
	return appsv1ac.Deployment("web", "ns").
		WithLabels(labels).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(2).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(labels).
				WithSpec(corev1ac.PodSpec().
					WithSecurityContext(kube.RestrictedPodSecurityContext()).
					WithContainers(corev1ac.Container().
						WithName("nginx").
						WithImage(image).
						WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(8080).WithProtocol(corev1.ProtocolTCP)).
						WithReadinessProbe(corev1ac.Probe().
							WithTCPSocket(corev1ac.TCPSocketAction().WithPort(intstr.FromString("http"))).
							WithPeriodSeconds(5)).
						WithSecurityContext(kube.RestrictedSecurityContext().WithReadOnlyRootFilesystem(true)).
						WithVolumeMounts(corev1ac.VolumeMount().WithName("tmp").WithMountPath("/tmp"))).
					WithVolumes(corev1ac.Volume().WithName("tmp").WithEmptyDir(corev1ac.EmptyDirVolumeSource())))))
}

// AppliedDeployment is the Deployment as the API server keeps it once the
// operator applied config, with the entry the apply leaves.
func AppliedDeployment(tb testing.TB, config runtime.ApplyConfiguration, annotations map[string]string) *appsv1.Deployment {
	tb.Helper()
	d := &appsv1.Deployment{}
	ApplyTo(tb, config, d)
	d.Annotations = annotations
	d.Status = appsv1.DeploymentStatus{ReadyReplicas: 2}
	return d
}

// identityFields name an applied object, and the API server leaves them
// out of the fields the apply manages.
var identityFields = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
)

// ApplyTo makes obj what config applies, with the managed-fields entry the
// operator's apply leaves, and no kind, as the cache's objects have.
func ApplyTo(tb testing.TB, config runtime.ApplyConfiguration, obj client.Object) {
	tb.Helper()
	data, err := json.Marshal(config)
	if err != nil {
		tb.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		tb.Fatal(err)
	}
	typed, err := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme).ObjectToTyped(u)
	if err != nil {
		tb.Fatal(err)
	}
	set, err := typed.ToFieldSet()
	if err != nil {
		tb.Fatal(err)
	}
	fields, err := set.Difference(identityFields).ToJSON()
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, obj); err != nil {
		tb.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: kube.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(fields)),
	}})
}

// Applied is the object as the API server keeps it once the operator
// applied desired, with the labels, spec and managed-fields entry of the
// apply, and what fixture sets over them: its status, or a spec field
// changed since. A fixture with no name stands for no object at all (what
// Apply leaves when the name is not the owner's), and is returned as it
// is.
func Applied[T client.Object](tb testing.TB, desired runtime.ApplyConfiguration, fixture T) T {
	tb.Helper()
	if fixture.GetName() == "" {
		return fixture
	}
	obj, ok := reflect.New(reflect.TypeOf(fixture).Elem()).Interface().(T)
	if !ok {
		tb.Fatalf("making an empty %T", fixture)
	}
	ApplyTo(tb, desired, obj)
	data, err := json.Marshal(fixture)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, obj); err != nil {
		tb.Fatal(err)
	}
	return obj
}
