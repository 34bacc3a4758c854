package kube

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

var specField = fieldpath.PathElement{FieldName: ptr.To("spec")}

// controlPlaneManagers are Kubernetes' own components. The spec fields they
// set are part of how the object works, not drift: the volume a claim is
// bound to, the node a pod is scheduled on.
var controlPlaneManagers = map[string]bool{
	"kube-controller-manager": true,
	"kube-scheduler":          true,
}

// hasForeignSpecFields tells whether someone other than the operator owns a
// field of the spec that the operator does not set: a selector key, a port
// or an environment variable added by hand. Server-side apply takes back
// the fields the operator sets, but never removes fields another manager
// owns, so such additions are drift that apply alone cannot put right.
func hasForeignSpecFields(obj client.Object) (bool, error) {
	ours, foreign := &fieldpath.Set{}, &fieldpath.Set{}
	for _, entry := range obj.GetManagedFields() {
		if entry.FieldsV1 == nil {
			continue
		}
		fields := &fieldpath.Set{}
		if err := fields.FromJSON(entry.FieldsV1.GetRawReader()); err != nil {
			return false, fmt.Errorf("reading the fields managed by %q: %w", entry.Manager, err)
		}
		switch {
		case entry.Manager == FieldManager:
			ours = ours.Union(fields.WithPrefix(specField))
		case !controlPlaneManagers[entry.Manager]:
			foreign = foreign.Union(fields.WithPrefix(specField))
		}
	}
	found := false
	foreign.Difference(ours).Iterate(func(p fieldpath.Path) {
		found = found || !isPodTemplateAnnotation(p)
	})
	return found, nil
}

// isPodTemplateAnnotation tells whether a path within a spec is an annotation
// of a pod template, which `kubectl rollout restart` sets to roll the pods
// and which is therefore left alone.
func isPodTemplateAnnotation(p fieldpath.Path) bool {
	prefix := []string{"template", "metadata", "annotations"}
	if len(p) < len(prefix) {
		return false
	}
	for i, name := range prefix {
		if p[i].FieldName == nil || *p[i].FieldName != name {
			return false
		}
	}
	return true
}

// removeForeignSpecFields writes desired's spec over current's with an
// update when others added fields to it, which drops those fields. Values
// that the API server allocated and the operator leaves unset (a Service's
// cluster IP) are kept by the server. This comes before the apply, because
// an addition can make the applied object invalid (a second port of the
// same name).
func (a *Applier) removeForeignSpecFields(ctx context.Context, owner Object, desired ApplyConfiguration, current client.Object) error {
	foreign, err := hasForeignSpecFields(current)
	if err != nil || !foreign {
		return err
	}
	var want, merged map[string]any
	if err := remarshal(desired, &want); err != nil {
		return err
	}
	if err := remarshal(current, &merged); err != nil {
		return err
	}
	// The cached object carries no apiVersion and kind; desired does.
	merged["apiVersion"], merged["kind"], merged["spec"] = want["apiVersion"], want["kind"], want["spec"]
	delete(merged, "status")
	replaced := &unstructured.Unstructured{Object: merged}
	if err := a.Client.Update(ctx, replaced, client.FieldOwner(FieldManager)); err != nil {
		a.warn(owner, "Update", "Could not remove fields others added to %s %s: %v", ptr.Deref(desired.GetKind(), ""), current.GetName(), err)
		return err
	}
	return nil
}

// remarshal copies src into dst through their JSON form. dst is expected to
// be empty, or to be overwritten in full by src.
func remarshal(src, dst any) error {
	data, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, dst)
}
