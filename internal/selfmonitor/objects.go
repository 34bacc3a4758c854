package selfmonitor

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/seed-operators/seed-operator/internal/kube"
)

// Group is prometheus-operator's API group, and Version the version of
// its ServiceMonitor and PrometheusRule.
const (
	Group   = "monitoring.coreos.com"
	Version = "v1"
)

// Objects are the manifests (a ServiceMonitor, a PrometheusRule: one
// object each, as config/prometheus has them) made the operator's own for
// its metrics Service: named after the Service, as kube-prometheus names a
// ServiceMonitor after the Service it scrapes, in its namespace, and owned
// by it, so that they go when the Service goes (with the operator, under
// OLM).
func Objects(service *corev1.Service, manifests ...[]byte) ([]*unstructured.Unstructured, error) {
	objects := make([]*unstructured.Unstructured, 0, len(manifests))
	for _, manifest := range manifests {
		read := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(manifest, &read.Object); err != nil {
			return nil, fmt.Errorf("decoding a monitoring manifest: %w", err)
		}
		gvk := read.GroupVersionKind()
		if gvk.Group != Group || gvk.Version != Version {
			return nil, fmt.Errorf("a monitoring manifest is a %s, not of %s/%s", gvk, Group, Version)
		}
		spec, ok := read.Object["spec"]
		if !ok {
			return nil, fmt.Errorf("the %s manifest has no spec", gvk.Kind)
		}
		labels := read.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[kube.LabelManagedBy] = kube.ManagedBy

		object := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		object.SetGroupVersionKind(gvk)
		object.SetName(service.Name)
		object.SetNamespace(service.Namespace)
		object.SetLabels(labels)
		object.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: "v1",
			Kind:       "Service",
			Name:       service.Name,
			UID:        service.UID,
		}})
		objects = append(objects, object)
	}
	return objects, nil
}
