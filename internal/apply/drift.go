package apply

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

	"github.com/seed-operators/seed-operator/internal/kube"
)

var specField = fieldpath.PathElement{FieldName: ptr.To("spec")}

// controlPlaneManagers are Kubernetes' own components.
var controlPlaneManagers = map[string]bool{
	"kube-controller-manager": true,
	"kube-scheduler":          true,
}

// IsControlPlane tells whether manager is one of Kubernetes' own
// components. The spec fields they set are part of how the object works,
// not drift: the volume a claim is bound to, the node a pod is scheduled
// on.
func IsControlPlane(manager string) bool {
	return controlPlaneManagers[manager]
}

// debugSubresource is where `kubectl debug` adds its ephemeral containers to
// a pod. They help someone look into the pod, and are not drift to undo by
// replacing the pod under them.
const debugSubresource = "ephemeralcontainers"

// ForeignSpecManagers are the field managers, other than the operator's
// applies, that own a field of obj's spec the operator does not set: a
// selector key, a port, an environment variable or a toleration added by
// hand. Server-side apply takes back the fields the operator sets, but never
// removes fields another manager owns, so such additions are drift that
// apply alone cannot put right. A field someone changed counts too: their
// update took it over.
func ForeignSpecManagers(obj client.Object) ([]string, error) {
	applied, others, err := specFields(obj)
	if err != nil {
		return nil, err
	}
	return managersBeyond(others, applied), nil
}

// strayManagers are the field managers that own a field of obj's spec which
// desired does not set: applying desired would leave it in place. The
// operator's own updates count (the patch of an earlier repair): what they
// wrote stays as long as they own it, so a port the spec has since moved
// would stay beside the new one. A field desired sets does not count: the
// apply takes it back.
func strayManagers(obj client.Object, desired ApplyConfiguration) ([]string, error) {
	_, others, err := specFields(obj)
	if err != nil || len(others) == 0 {
		return nil, err
	}
	fields, err := desiredFields(desired)
	if err != nil {
		return nil, err
	}
	return managersBeyond(others, withParents(fields.WithPrefix(specField))), nil
}

// withParents is set with the lists and maps that hold its fields: an
// update that makes a list (a Service's ports) owns the list itself too,
// and an apply that sets an element of it keeps the list.
func withParents(set *fieldpath.Set) *fieldpath.Set {
	parents := &fieldpath.Set{}
	set.Iterate(func(p fieldpath.Path) {
		for i := 1; i < len(p); i++ {
			parents.Insert(p[:i].Copy())
		}
	})
	return set.Union(parents)
}

// specFields are the spec fields of obj that the operator's applies manage,
// and those of every other writer by manager: the operator's own updates
// among them, the control plane and kubectl debug aside.
func specFields(obj client.Object) (applied *fieldpath.Set, others map[string]*fieldpath.Set, err error) {
	applied, others = &fieldpath.Set{}, map[string]*fieldpath.Set{}
	for _, entry := range obj.GetManagedFields() {
		if entry.FieldsV1 == nil || entry.Subresource == debugSubresource || IsControlPlane(entry.Manager) {
			continue
		}
		fields := &fieldpath.Set{}
		if err := fields.FromJSON(entry.FieldsV1.GetRawReader()); err != nil {
			return nil, nil, fmt.Errorf("reading the fields managed by %q: %w", entry.Manager, err)
		}
		spec := fields.WithPrefix(specField)
		if IsApplied(entry) {
			applied = applied.Union(spec)
			continue
		}
		if previous, ok := others[entry.Manager]; ok {
			spec = spec.Union(previous)
		}
		others[entry.Manager] = spec
	}
	return applied, others, nil
}

// managersBeyond are the managers among others that own a field outside
// set, pod template annotations aside, sorted.
func managersBeyond(others map[string]*fieldpath.Set, set *fieldpath.Set) []string {
	var managers []string
	for manager, fields := range others {
		found := false
		fields.Difference(set).Iterate(func(p fieldpath.Path) {
			found = found || !isPodTemplateAnnotation(p)
		})
		if found {
			managers = append(managers, manager)
		}
	}
	slices.Sort(managers)
	return managers
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
	ctx context.Context, owner kube.Object, desired ApplyConfiguration, current client.Object, foreign []string,
) error {
	patch, err := replaceSpecPatch(desired)
	if err != nil {
		return err
	}
	// Patch fills the object it is given with the answer; current is the
	// caller's record of what was there before.
	target, _ := current.DeepCopyObject().(client.Object)
	if err := a.Writer.Patch(ctx, target, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(kube.FieldManager)); err != nil {
		added := strings.Join(foreign, ", ")
		a.Warn(owner, ReasonApplyFailed, "Update", "Could not remove the spec fields %s added to %s %s: %v",
			added, ptr.Deref(desired.GetKind(), ""), current.GetName(), err)
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
