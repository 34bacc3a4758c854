package apply

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/seed-operators/seed-operator/internal/kube"
	"github.com/seed-operators/seed-operator/internal/memo"
)

// typeConverter knows the schemas of the built-in kinds, which are the
// kinds the operator applies.
var typeConverter = applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)

// identityFields are the fields an apply names its object by, and which the
// API server leaves out of the fields the apply manages.
var identityFields = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
)

// UpToDate tells whether applying desired to live would change nothing:
// the operator's last apply to live set exactly desired's fields, and
// each still has the value desired gives it. A field someone else changed
// since is no longer the operator's (their write took it over), so it
// shows as missing. live comes from the cache, which makes the check free
// of API requests; a cache that is behind only costs an apply. The cache
// may keep only the digest of what was applied in place of the spec
// (package cached); any other object is read whole.
func UpToDate(desired ApplyConfiguration, live client.Object) (bool, error) {
	want, err := typedDesired(desired)
	if err != nil {
		return false, err
	}
	return want.upToDate(live)
}

// desiredObject is what the Applier compares the cached object with: the
// kind of an object the operator applies and the digest its fields would
// have as applied.
type desiredObject struct {
	gvk    schema.GroupVersionKind
	digest string
}

// desiredLimit is how many desired objects each half of desiredObjects
// holds: more than the objects of a few thousand owners.
const desiredLimit = 8192

// desiredObjects remembers each desired object by a hash of its JSON, which
// holds all it is computed from. An owner whose spec did not change asks for
// the same objects at every reconcile, and converting one to its schema's
// typed value, the fields it sets and their digest cost many times what
// writing its JSON does.
var desiredObjects = memo.New[[sha256.Size]byte, desiredObject](desiredLimit)

// typedDesired is the desiredObject of desired, remembered.
func typedDesired(desired ApplyConfiguration) (desiredObject, error) {
	data, err := json.Marshal(desired)
	if err != nil {
		return desiredObject{}, err
	}
	key := sha256.Sum256(data)
	if d, ok := desiredObjects.Get(key); ok {
		return d, nil
	}
	gvk := schema.FromAPIVersionAndKind(ptr.Deref(desired.GetAPIVersion(), ""), ptr.Deref(desired.GetKind(), ""))
	d, err := newDesiredObject(gvk, data)
	if err != nil {
		return desiredObject{}, err
	}
	desiredObjects.Put(key, d)
	return d, nil
}

// newDesiredObject is the desiredObject of an apply configuration of kind
// gvk, as JSON.
func newDesiredObject(gvk schema.GroupVersionKind, data []byte) (desiredObject, error) {
	want, fields, err := typedFields(data)
	if err != nil {
		return desiredObject{}, err
	}
	// The API server leaves the identity fields out of the apply's entry.
	applied := fields.Difference(identityFields)
	sum, err := digest(applied, want.AsValue(), kindType{schema: want.Schema(), ref: want.TypeRef()})
	if err != nil {
		return desiredObject{}, err
	}
	return desiredObject{gvk: gvk, digest: sum}, nil
}

// desiredFields are the fields desired sets.
func desiredFields(desired ApplyConfiguration) (*fieldpath.Set, error) {
	data, err := json.Marshal(desired)
	if err != nil {
		return nil, err
	}
	_, fields, err := typedFields(data)
	return fields, err
}

// upToDate is UpToDate for the desired object d: the digests of what the
// operator's last apply set in live and of what d would set are equal.
func (d desiredObject) upToDate(live client.Object) (bool, error) {
	got, err := AppliedDigest(live, d.gvk)
	if err != nil || got == "" {
		return false, err
	}
	return got == d.digest, nil
}

// appliedFields are the fields of obj that the operator's applies manage,
// or nil when it never applied obj.
func appliedFields(obj client.Object) (*fieldpath.Set, error) {
	for _, entry := range obj.GetManagedFields() {
		if !IsApplied(entry) || entry.FieldsV1 == nil {
			continue
		}
		fields := &fieldpath.Set{}
		if err := fields.FromJSON(entry.FieldsV1.GetRawReader()); err != nil {
			return nil, fmt.Errorf("reading the fields the operator applied to %s: %w", obj.GetName(), err)
		}
		return fields, nil
	}
	return nil, nil
}

// IsApplied tells whether entry is that of the operator's applies.
func IsApplied(entry metav1.ManagedFieldsEntry) bool {
	return entry.Manager == kube.FieldManager && entry.Operation == metav1.ManagedFieldsOperationApply && entry.Subresource == ""
}

// typedFields is an object, as JSON, as a value of its kind's schema, and
// the fields it sets.
func typedFields(data []byte) (*typed.TypedValue, *fieldpath.Set, error) {
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return nil, nil, err
	}
	want, err := typeConverter.ObjectToTyped(u)
	if err != nil {
		return nil, nil, err
	}
	fields, err := want.ToFieldSet()
	return want, fields, err
}

// kindType is the schema of a kind's objects, and their type in it.
type kindType struct {
	schema *smdschema.Schema
	ref    smdschema.TypeRef
}

// kindTypes holds the kindType of each kind the operator read.
var kindTypes sync.Map

// typeOf is the kindType of gvk, learnt from an empty object of the kind.
// The operator reads live objects against it unvalidated: the API server
// validated them, and validating them again took two thirds of the time
// the cache's transform spent on a Deployment (BenchmarkDigest).
func typeOf(gvk schema.GroupVersionKind) (kindType, error) {
	if t, ok := kindTypes.Load(gvk); ok {
		return t.(kindType), nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	empty, err := typeConverter.ObjectToTyped(u)
	if err != nil {
		return kindType{}, err
	}
	t, _ := kindTypes.LoadOrStore(gvk, kindType{schema: empty.Schema(), ref: empty.TypeRef()})
	return t.(kindType), nil
}
