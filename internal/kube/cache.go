package kube

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions are the manager's cache options: the namespaces watched
// (nil for all), and, for each of the given owned types, only the objects
// the operator manages, so that a cluster full of other Deployments and
// Services costs the manager no memory. Of the managed fields, the cache
// keeps only those the operator reads: none of its custom resources', and
// of owned objects', those TrimManagedFields keeps.
func CacheOptions(namespaces map[string]cache.Config, ownedTypes ...client.Object) cache.Options {
	return cache.Options{
		DefaultNamespaces: namespaces,
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject:          managedOnly(ownedTypes...),
	}
}

func managedOnly(ownedTypes ...client.Object) map[client.Object]cache.ByObject {
	managed := cache.ByObject{
		Label:     labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy}),
		Transform: TrimManagedFields,
	}
	byObject := make(map[client.Object]cache.ByObject, len(ownedTypes))
	for _, t := range ownedTypes {
		byObject[t] = managed
	}
	return byObject
}

// TrimManagedFields drops from a cached object the managed-field entries
// the operator never reads: those of status writes, and those of the
// control plane's components. ForeignSpecManagers looks for spec fields of
// other managers, and skips the control plane's; UpToDate reads the
// operator's own entry. Status entries are most of an owned object's
// managed fields (a pod's conditions, a Deployment's), and managed fields
// are much of its size.
//
// Of a pod the operator did not apply itself (one of a Deployment or a
// Job), which it only watches for its status, it keeps the metadata and
// the status only.
func TrimManagedFields(obj any) (any, error) {
	o, ok := obj.(metav1.Object)
	if !ok {
		return obj, nil
	}
	entries := o.GetManagedFields()
	applied := false
	kept := entries[:0]
	for _, entry := range entries {
		applied = applied || (entry.Manager == FieldManager && entry.Operation == metav1.ManagedFieldsOperationApply)
		if entry.Subresource == "status" || controlPlaneManagers[entry.Manager] {
			continue
		}
		kept = append(kept, entry)
	}
	o.SetManagedFields(kept)
	if pod, ok := obj.(*corev1.Pod); ok && !applied {
		pod.ManagedFields = nil
		pod.Spec = corev1.PodSpec{}
	}
	return obj, nil
}
