package demovolume

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// FuzzDesiredClaim builds the claim and the status of every DemoVolume the
// API server admits, and checks that the API server accepts the claim.
func FuzzDesiredClaim(f *testing.F) {
	c := testenv.FuzzClient(f)
	f.Add("data", "Data", int32(1), "", "", "Delete")
	f.Add("d", "日本語 $(X)", int32(65536), "fast.ssd", "ReadWriteOncePod", "Retain")
	f.Fuzz(func(t *testing.T, name, volumeName string, size int32, storageClass, accessMode, reclaim string) {
		dv := &seedv1alpha1.DemoVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testenv.FuzzNamespace},
			Spec:       seedv1alpha1.DemoVolumeSpec{Name: volumeName, Size: size, ReclaimPolicy: seedv1alpha1.ReclaimPolicy(reclaim)},
		}
		if storageClass != "" {
			dv.Spec.StorageClassName = &storageClass
		}
		if accessMode != "" {
			dv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.PersistentVolumeAccessMode(accessMode)}
		}
		if !testenv.Admitted(t, c, dv) {
			return
		}
		testenv.ExpectAccepted(t, c, desiredClaim(dv, holderRef, ""))
		computeStatus(dv, &corev1.PersistentVolumeClaim{}, nil)
	})
}
