package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
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

// debugSubresource is where `kubectl debug` adds its ephemeral containers to
// a pod. They help someone look into the pod, and are not drift to undo by
// replacing the pod under them.
const debugSubresource = "ephemeralcontainers"

// ForeignSpecManagers are the field managers, other than the operator, that
// own a field of obj's spec the operator does not set: a selector key, a
// port, an environment variable or a toleration added by hand. Server-side
// apply takes back the fields the operator sets, but never removes fields
// another manager owns, so such additions are drift that apply alone cannot
// put right. A field someone changed counts too: their update took it over.
func ForeignSpecManagers(obj client.Object) ([]string, error) {
	ours := &fieldpath.Set{}
	foreign := map[string]*fieldpath.Set{}
	for _, entry := range obj.GetManagedFields() {
		if entry.FieldsV1 == nil || entry.Subresource == debugSubresource {
			continue
		}
		fields := &fieldpath.Set{}
		if err := fields.FromJSON(entry.FieldsV1.GetRawReader()); err != nil {
			return nil, fmt.Errorf("reading the fields managed by %q: %w", entry.Manager, err)
		}
		spec := fields.WithPrefix(specField)
		switch {
		case entry.Manager == FieldManager:
			ours = ours.Union(spec)
		case !controlPlaneManagers[entry.Manager]:
			if previous, ok := foreign[entry.Manager]; ok {
				spec = spec.Union(previous)
			}
			foreign[entry.Manager] = spec
		}
	}
	var managers []string
	for manager, fields := range foreign {
		found := false
		fields.Difference(ours).Iterate(func(p fieldpath.Path) {
			found = found || !isPodTemplateAnnotation(p)
		})
		if found {
			managers = append(managers, manager)
		}
	}
	slices.Sort(managers)
	return managers, nil
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

// removeForeignSpecFields replaces current's spec with desired's, which
// drops the fields that the foreign managers added. Values that the API
// server allocated and the operator leaves unset (a Service's cluster IP)
// are kept by the server. This comes before the apply, because an addition
// can make the applied object invalid (a second port of the same name).
//
// The replacement is a JSON patch, so the operator needs no more than the
// patch verb it already has for server-side apply. It takes no lock on the
// version read: whatever changed since, the spec to write is the same, and
// a read from a cache that is a little behind must not fail the repair.
func (a *Applier) removeForeignSpecFields(
	ctx context.Context, owner Object, desired ApplyConfiguration, current client.Object, foreign []string,
) error {
	patch, err := replaceSpecPatch(desired)
	if err != nil {
		return err
	}
	// Patch fills the object it is given with the answer; current is the
	// caller's record of what was there before.
	target, _ := current.DeepCopyObject().(client.Object)
	if err := a.Writer.Patch(ctx, target, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(FieldManager)); err != nil {
		added := strings.Join(foreign, ", ")
		a.warn(owner, "Update", "Could not remove the spec fields %s added to %s %s: %v", added, ptr.Deref(desired.GetKind(), ""), current.GetName(), err)
		return fmt.Errorf("removing the spec fields %s added: %w", added, err)
	}
	return nil
}

// replaceSpecPatch is a JSON patch that sets desired's spec as the whole
// spec.
func replaceSpecPatch(desired ApplyConfiguration) ([]byte, error) {
	var want struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := remarshal(desired, &want); err != nil {
		return nil, err
	}
	type operation struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	return json.Marshal([]operation{{Op: "replace", Path: "/spec", Value: want.Spec}})
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
