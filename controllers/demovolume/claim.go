package demovolume

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/kube"
)

const (
	// kind is the app.kubernetes.io/name of a DemoVolume's claim.
	kind = "demovolume"

	// retainedLabel marks a claim kept after its DemoVolume was deleted,
	// so that `kubectl get pvc -l seed.example.com/retained=true` lists
	// the data left behind.
	retainedLabel = "seed.example.com/retained"

	// trueValue is how a label or an annotation says yes.
	trueValue = "true"
)

var gvk = seedv1alpha1.GroupVersion.WithKind("DemoVolume")

// desiredClaim is the PersistentVolumeClaim of a DemoVolume, owned by it and
// in its namespace, made from backup if one is named.
func desiredClaim(dv *seedv1alpha1.DemoVolume, backup string) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	return claim(dv, backup).WithOwnerReferences(kube.ControllerReference(dv, gvk))
}

// backupSource is the backup a claim was made from, if any.
func backupSource(pvc *corev1.PersistentVolumeClaim) string {
	if ref := pvc.Spec.DataSourceRef; ref != nil && ptr.Deref(ref.APIGroup, "") == snapshotAPIGroup && ref.Kind == SnapshotGVK.Kind {
		return ref.Name
	}
	return ""
}

// retainedClaim is the claim of a deleted DemoVolume with Retain, live as
// read from the API server: no longer owned, so the garbage collector leaves
// it, and labelled as retained. It keeps the request the claim has: the
// spec's may be one the API server refuses (a claim not bound yet, or whose
// storage class cannot expand), and the DemoVolume could then never go. The
// resource version makes the apply fail rather than create a claim that
// someone deleted in the meantime.
func retainedClaim(dv *seedv1alpha1.DemoVolume, live *corev1.PersistentVolumeClaim) *corev1ac.PersistentVolumeClaimApplyConfiguration {
	c := claim(dv, backupSource(live)).
		WithLabels(map[string]string{retainedLabel: trueValue}).
		WithResourceVersion(live.ResourceVersion)
	if request, ok := live.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		c.Spec.Resources.WithRequests(corev1.ResourceList{corev1.ResourceStorage: request})
	}
	return c
}

// retainedFor tells whether a claim is one that a deleted DemoVolume of
// dv's name retained, and so dv may take back: the one adoption the
// operator makes. A claim anyone else made, labelled or not, stays theirs.
func retainedFor(dv *seedv1alpha1.DemoVolume) apply.Adoptable {
	return func(obj client.Object) bool {
		labels := obj.GetLabels()
		return labels[retainedLabel] == trueValue && labels[kube.LabelName] == kind && labels[kube.LabelInstance] == dv.Name &&
			metav1.GetControllerOf(obj) == nil
	}
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
