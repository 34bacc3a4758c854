package immortalcontainer

import (
	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("ImmortalContainer controller, when the name of its pod is taken", func() {
	pod := func(namespace string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "victim-immortalpod", Namespace: namespace, Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}, {Name: "sidecar", Image: "busybox"}}},
		}
	}
	owner := func(namespace string) func() kube.Object {
		return func() kube.Object {
			return &seedv1alpha1.ImmortalContainer{
				ObjectMeta: metav1.ObjectMeta{Name: "victim", Namespace: namespace},
				Spec:       seedv1alpha1.ImmortalContainerSpec{Image: image},
			}
		}
	}

	It("leaves a user's pod alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "immortal-conflict")
		testenv.NameConflict{Theirs: pod(namespace, nil), Owner: owner(namespace), OwnerKind: "ImmortalContainer"}.Expect(ctx, k8sClient)
	})

	// The operator's cache holds every pod with its labels, whoever made it:
	// a pod so labelled is no more the operator's to replace or delete.
	It("leaves a user's pod with the operator's labels alone", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "immortal-conflict")
		theirs := pod(namespace, kube.Labels(kind, "victim"))
		testenv.NameConflict{Theirs: theirs, Owner: owner(namespace), OwnerKind: "ImmortalContainer"}.Expect(ctx, k8sClient)
	})
})
