package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// appliedDigestAnnotation holds, on an object in the manager's cache, the
// digest of what the operator's last apply set (appliedDigest). It exists
// only in the cache: the cache's transform sets it, or removes it, on every
// object it stores, so a value someone wrote on the server is never read,
// and the operator never writes a cached object back.
const appliedDigestAnnotation = "cache.seed.example.com/applied-digest"

// appliedDigest is the digest of what the operator's last apply to obj set:
// the fields its managed-fields entry names, and their values in obj. It is
// "" when the operator never applied obj. An object from the cache carries
// it, computed before its spec was dropped; any other is read whole.
func appliedDigest(obj client.Object, gvk schema.GroupVersionKind) (string, error) {
	if digest, ok := obj.GetAnnotations()[appliedDigestAnnotation]; ok {
		return digest, nil
	}
	owned, err := appliedFields(obj)
	if err != nil || owned == nil {
		return "", err
	}
	live, err := liveTyped(obj, gvk)
	if err != nil {
		return "", err
	}
	return digest(owned, live.ExtractItems(owned).AsValue())
}

// digest is a digest of a set of fields and their values, equal for two
// pairs exactly when the sets are equal and value.Equals holds for the
// values: map keys are taken in order, and a float that is a whole number
// counts as that integer.
func digest(fields *fieldpath.Set, v value.Value) (string, error) {
	names, err := fields.ToJSON()
	if err != nil {
		return "", fmt.Errorf("writing a field set: %w", err)
	}
	h := sha256.New()
	h.Write(names)
	writeValue(h, v)
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// writeValue writes v to h in a form that tells every two values apart
// that value.Equals does.
func writeValue(h hash.Hash, v value.Value) {
	switch {
	case v.IsFloat() && v.AsFloat() == math.Trunc(v.AsFloat()) && math.Abs(v.AsFloat()) < 1<<63:
		writeToken(h, 'i', strconv.FormatInt(int64(v.AsFloat()), 10))
	case v.IsFloat():
		writeToken(h, 'f', strconv.FormatFloat(v.AsFloat(), 'g', -1, 64))
	case v.IsInt():
		writeToken(h, 'i', strconv.FormatInt(v.AsInt(), 10))
	case v.IsString():
		writeToken(h, 's', v.AsString())
	case v.IsBool():
		writeToken(h, 'b', strconv.FormatBool(v.AsBool()))
	case v.IsList():
		list := v.AsList()
		writeToken(h, '[', strconv.Itoa(list.Length()))
		for i := range list.Length() {
			writeValue(h, list.At(i))
		}
	case v.IsMap():
		m := v.AsMap()
		var keys []string
		m.Iterate(func(key string, _ value.Value) bool {
			keys = append(keys, key)
			return true
		})
		slices.Sort(keys)
		writeToken(h, '{', strconv.Itoa(len(keys)))
		for _, key := range keys {
			item, _ := m.Get(key)
			writeToken(h, 's', key)
			writeValue(h, item)
		}
	default:
		writeToken(h, 'n', "")
	}
}

// writeToken writes a kind and a text of known length, so that no two
// sequences of tokens write the same bytes.
func writeToken(h hash.Hash, kind byte, text string) {
	h.Write([]byte{kind})
	h.Write([]byte(strconv.Itoa(len(text))))
	h.Write([]byte{':'})
	h.Write([]byte(text))
}
