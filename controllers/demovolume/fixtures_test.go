package demovolume

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// newDemoVolume is a DemoVolume as the API server stores it after
// defaulting, changed by each mutate function in turn.
// holderRef is the owner reference of newDemoVolume's namespace.
var holderRef = metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "team-a", UID: "ns-uid"}

func newDemoVolume(mutate ...func(*seedv1alpha1.DemoVolume)) *seedv1alpha1.DemoVolume {
	dv := &seedv1alpha1.DemoVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "team-a", UID: "uid-1", Generation: 1},
		Spec: seedv1alpha1.DemoVolumeSpec{
			Name:          "Team A data",
			Size:          10,
			AccessModes:   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			ReclaimPolicy: seedv1alpha1.ReclaimRetain,
		},
	}
	for _, m := range mutate {
		m(dv)
	}
	return dv
}
