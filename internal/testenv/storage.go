package testenv

import (
	"context"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The storage controllers envtest does not run, played by the specs.

// BindClaim plays the PV controller binding the claim key to a volume of
// size: the volume's name goes in the spec, the rest in the status.
func BindClaim(ctx context.Context, c client.Client, key client.ObjectKey, size string) {
	Eventually(ctx, func(g Gomega) {
		pvc := &corev1.PersistentVolumeClaim{}
		g.Expect(c.Get(ctx, key, pvc)).To(Succeed())
		if pvc.Spec.VolumeName == "" {
			pvc.Spec.VolumeName = "pv-" + string(pvc.UID)
			g.Expect(c.Update(ctx, pvc)).To(Succeed())
		}
		pvc.Status.Phase = corev1.ClaimBound
		pvc.Status.AccessModes = pvc.Spec.AccessModes
		pvc.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}
		g.Expect(c.Status().Update(ctx, pvc)).To(Succeed())
	}).Should(Succeed())
}

// ReadySnapshot plays the snapshot controller: the snapshot key is taken,
// of size, and ready to restore from.
func ReadySnapshot(ctx context.Context, c client.Client, key client.ObjectKey, size string) {
	Eventually(ctx, func(g Gomega) {
		b := &snapshotv1.VolumeSnapshot{}
		g.Expect(c.Get(ctx, key, b)).To(Succeed())
		b.Status = &snapshotv1.VolumeSnapshotStatus{
			ReadyToUse: ptr.To(true), RestoreSize: ptr.To(resource.MustParse(size)), CreationTime: ptr.To(metav1.Now()),
		}
		g.Expect(c.Status().Update(ctx, b)).To(Succeed())
	}).Should(Succeed())
}
