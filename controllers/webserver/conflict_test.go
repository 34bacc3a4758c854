package webserver

import (
	. "github.com/onsi/ginkgo/v2"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("WebServer controller, when a name it would use is taken", func() {
	owner := func(namespace, name string) func() kube.Object {
		return func() kube.Object {
			return &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		}
	}

	It("leaves a user's Service alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "webserver-conflict")
		testenv.NameConflict{
			Theirs: &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: "mine-service", Namespace: namespace},
				Spec: corev1.ServiceSpec{
					Selector: map[string]string{"app": "mine-service"},
					Ports:    []corev1.ServicePort{{Name: "5432-5432", Port: 5432, TargetPort: intstr.FromInt32(5432)}},
				},
			},
			Owner:     owner(namespace, "mine"),
			OwnerKind: "WebServer",
			Collect:   []client.ObjectList{&appsv1.DeploymentList{}},
		}.Expect(ctx, k8sClient)
	})

	It("leaves a user's Deployment alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "webserver-conflict")
		labels := map[string]string{"app": "clash"}
		testenv.NameConflict{
			Theirs: &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "clash", Namespace: namespace, Labels: labels},
				Spec: appsv1.DeploymentSpec{
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
					},
				},
			},
			Owner:     owner(namespace, "clash"),
			OwnerKind: "WebServer",
			Collect:   []client.ObjectList{&corev1.ServiceList{}},
		}.Expect(ctx, k8sClient)
	})

	It("leaves a user's HorizontalPodAutoscaler alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "webserver-conflict")
		testenv.NameConflict{
			Theirs: &autoscalingv2.HorizontalPodAutoscaler{
				ObjectMeta: metav1.ObjectMeta{Name: "scaled", Namespace: namespace},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "theirs"},
					MaxReplicas:    2,
				},
			},
			Owner: func() kube.Object {
				ws := &seedv1alpha1.WebServer{ObjectMeta: metav1.ObjectMeta{Name: "scaled", Namespace: namespace}}
				ws.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
				ws.Spec.Autoscaling = &seedv1alpha1.WebServerAutoscaling{MaxReplicas: 3}
				return ws
			},
			OwnerKind: "WebServer",
			Collect:   []client.ObjectList{&appsv1.DeploymentList{}, &corev1.ServiceList{}},
		}.Expect(ctx, k8sClient)
	})
})
