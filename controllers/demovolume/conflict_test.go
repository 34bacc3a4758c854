package demovolume

import (
	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

var _ = Describe("DemoVolume controller, when the name of its claim is taken", func() {
	// taken is the spec with someone's claim of the given labels in the way
	// of a DemoVolume whose claim is deleted with it.
	taken := func(namespace, name string, labels map[string]string) testenv.NameConflict {
		return testenv.NameConflict{
			Theirs: &corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
					},
				},
			},
			Owner: func() kube.Object {
				return &seedv1alpha1.DemoVolume{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
					Spec:       seedv1alpha1.DemoVolumeSpec{Name: name, Size: 1, ReclaimPolicy: seedv1alpha1.ReclaimDelete},
				}
			},
			OwnerKind: "DemoVolume",
			// No pvc-protection controller runs in envtest.
			Free: func(obj client.Object) { obj.SetFinalizers(nil) },
		}
	}

	It("never takes a claim it did not make, even with reclaimPolicy Delete", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "demovolume-conflict")
		taken(namespace, "userdata", map[string]string{"team": "payments"}).Expect(ctx, k8sClient)
	})

	It("never takes a claim labelled as retained for another DemoVolume", func(ctx SpecContext) {
		namespace := env.Namespace(ctx, "demovolume-conflict")
		labels := kube.Labels(kind, "other")
		labels[retainedLabel] = "true"
		taken(namespace, "data", labels).Expect(ctx, k8sClient)
	})
})
