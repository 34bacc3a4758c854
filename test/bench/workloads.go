package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// workload is a set of N objects of one kind made at once, and the test
// of when one of them is done.
type workload struct {
	// tracked is the resource whose objects are waited for, one per index.
	tracked schema.GroupVersionResource
	// objects are the objects made for index i; the first is the tracked one.
	objects func(i int) []runtime.Object
	ready   func(obj *unstructured.Unstructured) bool
}

// kind is one custom resource of the operator, measured against raw
// client-go making the objects the operator would make for it.
type kind struct {
	name       string
	controller string
	operator   workload
	baseline   workload
}

// The images do not matter on kwok nodes; they are those of the samples.
const (
	nginxImage   = "docker.io/nginxinc/nginx-unprivileged:1.29.3-alpine"
	busyboxImage = "docker.io/library/busybox:1.37.0"
)

var (
	webServers         = seedv1alpha1.GroupVersion.WithResource("webservers")
	echoes             = seedv1alpha1.GroupVersion.WithResource("echoes")
	immortalContainers = seedv1alpha1.GroupVersion.WithResource("immortalcontainers")
	demoVolumes        = seedv1alpha1.GroupVersion.WithResource("demovolumes")
	deployments        = appsv1.SchemeGroupVersion.WithResource("deployments")
	jobs               = batchv1.SchemeGroupVersion.WithResource("jobs")
	pods               = corev1.SchemeGroupVersion.WithResource("pods")
	claims             = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
)

func name(prefix string, i int) string { return fmt.Sprintf("%s-%05d", prefix, i) }

// kinds are the kinds measured, in the order they run.
var kinds = []kind{
	{
		name: "WebServer", controller: "webserver",
		operator: workload{tracked: webServers, ready: conditionTrue(seedv1alpha1.ConditionReady), objects: func(i int) []runtime.Object {
			return []runtime.Object{&seedv1alpha1.WebServer{
				TypeMeta:   metav1.TypeMeta{APIVersion: seedv1alpha1.GroupVersion.String(), Kind: "WebServer"},
				ObjectMeta: metav1.ObjectMeta{Name: name("web", i)},
				Spec: seedv1alpha1.WebServerSpec{
					Replicas: ptr.To[int32](1), Image: nginxImage, ContainerPort: 8080, Port: 80,
					Resources: resources(),
				},
			}}
		}},
		baseline: workload{tracked: deployments, ready: conditionTrue(string(appsv1.DeploymentAvailable)), objects: func(i int) []runtime.Object {
			labels := map[string]string{"app": name("web", i)}
			return []runtime.Object{
				&appsv1.Deployment{
					TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
					ObjectMeta: metav1.ObjectMeta{Name: name("web", i), Labels: labels},
					Spec: appsv1.DeploymentSpec{
						Replicas: ptr.To[int32](1),
						Selector: &metav1.LabelSelector{MatchLabels: labels},
						Template: corev1.PodTemplateSpec{
							ObjectMeta: metav1.ObjectMeta{Labels: labels},
							Spec:       podSpec("nginx", nginxImage, corev1.ContainerPort{Name: "http", ContainerPort: 8080}),
						},
					},
				},
				&corev1.Service{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
					ObjectMeta: metav1.ObjectMeta{Name: name("web", i), Labels: labels},
					Spec: corev1.ServiceSpec{
						Selector: labels,
						Ports:    []corev1.ServicePort{{Name: "http", Port: 80}},
					},
				},
			}
		}},
	},
	{
		name: "Echo", controller: "echo",
		operator: workload{tracked: echoes, ready: conditionTrue(seedv1alpha1.ConditionReady), objects: func(i int) []runtime.Object {
			return []runtime.Object{&seedv1alpha1.Echo{
				TypeMeta:   metav1.TypeMeta{APIVersion: seedv1alpha1.GroupVersion.String(), Kind: "Echo"},
				ObjectMeta: metav1.ObjectMeta{Name: name("echo", i)},
				Spec:       seedv1alpha1.EchoSpec{Message: fmt.Sprintf("Hello %d", i)},
			}}
		}},
		baseline: workload{tracked: jobs, ready: conditionTrue(string(batchv1.JobComplete)), objects: func(i int) []runtime.Object {
			spec := podSpec("echo", busyboxImage)
			spec.Containers[0].Command = []string{"echo", fmt.Sprintf("Hello %d", i)}
			spec.RestartPolicy = corev1.RestartPolicyNever
			return []runtime.Object{&batchv1.Job{
				TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
				ObjectMeta: metav1.ObjectMeta{Name: name("echo", i)},
				Spec:       batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}},
			}}
		}},
	},
	{
		name: "ImmortalContainer", controller: "immortalcontainer",
		operator: workload{tracked: immortalContainers, ready: conditionTrue(seedv1alpha1.ConditionReady), objects: func(i int) []runtime.Object {
			return []runtime.Object{&seedv1alpha1.ImmortalContainer{
				TypeMeta:   metav1.TypeMeta{APIVersion: seedv1alpha1.GroupVersion.String(), Kind: "ImmortalContainer"},
				ObjectMeta: metav1.ObjectMeta{Name: name("immortal", i)},
				Spec: seedv1alpha1.ImmortalContainerSpec{
					Image: busyboxImage, Command: []string{"sleep", "infinity"}, RunAsUser: ptr.To[int64](65534),
					Resources: resources(),
				},
			}}
		}},
		baseline: workload{tracked: pods, ready: conditionTrue(string(corev1.PodReady)), objects: func(i int) []runtime.Object {
			spec := podSpec("immortal", busyboxImage)
			spec.Containers[0].Command = []string{"sleep", "infinity"}
			return []runtime.Object{&corev1.Pod{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Name: name("immortal", i)},
				Spec:       spec,
			}}
		}},
	},
	{
		name: "DemoVolume", controller: "demovolume",
		operator: workload{tracked: demoVolumes, ready: conditionTrue(seedv1alpha1.ConditionReady), objects: func(i int) []runtime.Object {
			return []runtime.Object{&seedv1alpha1.DemoVolume{
				TypeMeta:   metav1.TypeMeta{APIVersion: seedv1alpha1.GroupVersion.String(), Kind: "DemoVolume"},
				ObjectMeta: metav1.ObjectMeta{Name: name("volume", i)},
				Spec:       seedv1alpha1.DemoVolumeSpec{Name: fmt.Sprintf("Volume %d", i), Size: 1},
			}}
		}},
		baseline: workload{tracked: claims, ready: phaseIs(string(corev1.ClaimBound)), objects: func(i int) []runtime.Object {
			return []runtime.Object{&corev1.PersistentVolumeClaim{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
				ObjectMeta: metav1.ObjectMeta{Name: name("volume", i)},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}}
		}},
	},
}

// withCustomResource is the baseline with the kind's custom resource made
// too, after its objects, and no operator to act on it: what the custom
// resources alone cost the cluster, which no operator can save.
func (k kind) withCustomResource() workload {
	floor := k.baseline
	floor.objects = func(i int) []runtime.Object {
		return append(k.baseline.objects(i), k.operator.objects(i)[0])
	}
	return floor
}

func resources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
	}
}

// podSpec is a restricted pod of one container, as the operator makes them.
func podSpec(container, image string, ports ...corev1.ContainerPort) corev1.PodSpec {
	return corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name: container, Image: image, Ports: ports, Resources: resources(),
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
	}
}

// conditionTrue is done when the object's condition of type t is True.
func conditionTrue(t string) func(*unstructured.Unstructured) bool {
	return func(obj *unstructured.Unstructured) bool {
		list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		var conditions []metav1.Condition
		for _, item := range list {
			c, ok := item.(map[string]any)
			if !ok {
				continue
			}
			status, _ := c["status"].(string)
			typ, _ := c["type"].(string)
			conditions = append(conditions, metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status)})
		}
		return meta.IsStatusConditionTrue(conditions, t)
	}
}

// phaseIs is done when the object's status.phase is phase.
func phaseIs(phase string) func(*unstructured.Unstructured) bool {
	return func(obj *unstructured.Unstructured) bool {
		got, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
		return got == phase
	}
}
