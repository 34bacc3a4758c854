package apply

import (
	"crypto/sha256"
	"maps"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AppliedInputs is a fingerprint of what AppliedDigest reads of obj, its
// spec counted by its generation, which the API server raises on every
// change of a spec: two objects of one UID with the same fingerprint have
// the same applied digest. The fingerprint takes the operator's
// managed-fields entry, the labels and annotations it names, and the
// owner references and finalizers. Labels and annotations it does not
// name are not the operator's, and others' changes to them (the
// Deployment controller's revision annotation) change no digest. ok is
// false for an object with no generation (a Service, a claim) or that
// the operator never applied.
func AppliedInputs(obj client.Object) (fingerprint [sha256.Size]byte, ok bool) {
	entries := obj.GetManagedFields()
	i := slices.IndexFunc(entries, IsApplied)
	if i < 0 || obj.GetGeneration() == 0 {
		return fingerprint, false
	}
	d := digester{h: sha256.New()}
	d.write('i', strconv.FormatInt(obj.GetGeneration(), 10))
	var fields string
	if entries[i].FieldsV1 != nil {
		fields = entries[i].FieldsV1.String()
	}
	d.write('s', entries[i].APIVersion)
	d.write('s', fields)
	d.namedIn(fields, obj.GetLabels())
	d.namedIn(fields, obj.GetAnnotations())
	d.write('[', strconv.Itoa(len(obj.GetOwnerReferences())))
	for _, ref := range obj.GetOwnerReferences() {
		for _, text := range []string{ref.APIVersion, ref.Kind, ref.Name, string(ref.UID)} {
			d.write('s', text)
		}
		d.optionalBool(ref.Controller)
		d.optionalBool(ref.BlockOwnerDeletion)
	}
	d.write('[', strconv.Itoa(len(obj.GetFinalizers())))
	for _, finalizer := range obj.GetFinalizers() {
		d.write('s', finalizer)
	}
	return [sha256.Size]byte(d.h.Sum(nil)), true
}

// namedIn writes the entries of m whose key fields, a managed-fields
// entry, names, in order. A key named elsewhere in fields is written too,
// which only makes the fingerprint change more often than it must.
func (d *digester) namedIn(fields string, m map[string]string) {
	keys := slices.Sorted(maps.Keys(m))
	keys = slices.DeleteFunc(keys, func(key string) bool { return !strings.Contains(fields, `"f:`+key+`"`) })
	d.write('{', strconv.Itoa(len(keys)))
	for _, key := range keys {
		d.write('s', key)
		d.write('s', m[key])
	}
}

// optionalBool writes b, unset apart from false.
func (d *digester) optionalBool(b *bool) {
	if b == nil {
		d.write('n', "")
		return
	}
	d.write('b', strconv.FormatBool(*b))
}
