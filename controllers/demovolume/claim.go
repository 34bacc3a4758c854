package demovolume

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// kind is the app.kubernetes.io/name of a DemoVolume's claim.
	kind = "demovolume"

	// trueValue is how a label or an annotation says yes.
	trueValue = "true"
)

var gvk = seedv1alpha1.GroupVersion.WithKind("DemoVolume")

// desiredClaim is the PersistentVolumeClaim of a DemoVolume, owned by it and
// held by its namespace (holder), made from backup if one is named.
func desiredClaim(dv *seedv1alpha1.DemoVolume, holder metav1.OwnerReference, backup string) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	return claim(dv, backup).
		WithOwnerReferences(kube.ControllerReference(dv, gvk), holderApply(holder)).
		WithAnnotations(map[string]string{ownerUIDAnnotation: string(dv.UID)})
}

// liveClaimSpec is the desired claim of dv when its claim live exists: made
// from the backup it was made from, as a data source is immutable, and
// never asking for less than a request the claim has been granted, which
// the API server refuses: a claim grown by hand, or by the autoGrow of a
// deleted DemoVolume of this name that retained it, keeps its size. A
// request not granted yet is taken back, and a capacity larger than any
// request (a file share's) asks for nothing.
func liveClaimSpec(
	dv *seedv1alpha1.DemoVolume, holder metav1.OwnerReference, live *corev1.PersistentVolumeClaim,
) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	c := desiredClaim(dv, holder, backupSource(live))
	request, requested := live.Spec.Resources.Requests[corev1.ResourceStorage]
	capacity, bound := live.Status.Capacity[corev1.ResourceStorage]
	if requested && bound && request.Cmp(claimSize(dv)) > 0 && capacity.Cmp(request) >= 0 {
		c.Spec.Resources.WithRequests(corev1.ResourceList{corev1.ResourceStorage: request})
	}
	return c
}

// backupSource is the backup a claim was made from, if any.
func backupSource(pvc *corev1.PersistentVolumeClaim) string {
	if ref := pvc.Spec.DataSourceRef; ref != nil && ptr.Deref(ref.APIGroup, "") == snapshotAPIGroup && ref.Kind == SnapshotGVK.Kind {
		return ref.Name
	}
	return ""
}

// claim asks for size GiB (or what autoGrow grew it to), in the storage
// class and access modes of the spec, made from backup if one is named. A storage class left unset is
// filled in by the cluster's default.
func claim(dv *seedv1alpha1.DemoVolume, backup string) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	spec := corev1ac.PersistentVolumeClaimSpec().
		WithAccessModes(dv.Spec.AccessModes...).
		WithResources(corev1ac.VolumeResourceRequirements().
			WithRequests(map[corev1.ResourceName]resource.Quantity{corev1.ResourceStorage: claimSize(dv)}))
	if dv.Spec.StorageClassName != nil {
		spec.WithStorageClassName(*dv.Spec.StorageClassName)
	}
	if backup != "" {
		spec.WithDataSourceRef(corev1ac.TypedObjectReference().
			WithAPIGroup(snapshotAPIGroup).WithKind(SnapshotGVK.Kind).WithName(backup))
	}
	return corev1ac.PersistentVolumeClaim(dv.Name, dv.Namespace).
		WithLabels(kube.Labels(kind, dv.Name)).
		WithSpec(spec)
}
