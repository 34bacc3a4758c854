package cached

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/apply"
)

// memoLimit is how many objects a digestMemo's newer half holds before it
// becomes the older one.
const memoLimit = 1024

// digestMemo remembers, for one kind's informer, the applied digest of
// each object (apply.AppliedDigest), with a fingerprint of all it was
// computed from, so that a watch event that changed none of that, such as
// a Deployment's status update, does not compute it again. The digest
// reads the operator's managed-fields entry and the values of the fields
// it names, which are in the metadata or the spec: the fingerprint takes
// the entry and the metadata the operator applies whole, and the spec by
// its generation, which the API server raises on every change of the
// spec. Objects without a generation (a Service, a claim) are not
// remembered.
//
// It holds two halves: when the newer is full, the older is dropped, so
// the objects deleted since are forgotten without a watch of deletions,
// and the memory stays bounded.
type digestMemo struct {
	mu           sync.Mutex
	newer, older map[types.UID]memoEntry
}

type memoEntry struct {
	fingerprint [sha256.Size]byte
	digest      string
}

func newDigestMemo() *digestMemo {
	return &digestMemo{newer: map[types.UID]memoEntry{}}
}

// digest is digestOfWhole of o, remembered. A nil memo remembers nothing.
func (m *digestMemo) digest(o client.Object) (string, bool) {
	entry := appliedEntry(o)
	if m == nil || entry == nil || o.GetGeneration() == 0 || o.GetUID() == "" {
		return digestOfWhole(o)
	}
	fingerprint := fingerprintOf(o, entry)
	m.mu.Lock()
	remembered, ok := m.newer[o.GetUID()]
	if !ok {
		remembered, ok = m.older[o.GetUID()]
	}
	m.mu.Unlock()
	if ok && remembered.fingerprint == fingerprint {
		return remembered.digest, true
	}
	sum, ok := digestOfWhole(o)
	if !ok {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.newer) >= memoLimit {
		m.older, m.newer = m.newer, make(map[types.UID]memoEntry, memoLimit)
	}
	m.newer[o.GetUID()] = memoEntry{fingerprint: fingerprint, digest: sum}
	return sum, true
}

// appliedEntry is o's managed-fields entry of the operator's applies, or
// nil.
func appliedEntry(o client.Object) *metav1.ManagedFieldsEntry {
	entries := o.GetManagedFields()
	if i := slices.IndexFunc(entries, apply.IsApplied); i >= 0 {
		return &entries[i]
	}
	return nil
}

// fingerprintOf is a digest of what AppliedDigest reads of o, the spec
// counted by its generation: two objects of one UID with the same
// fingerprint have the same applied digest.
func fingerprintOf(o client.Object, entry *metav1.ManagedFieldsEntry) [sha256.Size]byte {
	h := sha256.New()
	// Each text is written after its length, so that no two sequences of
	// texts write the same bytes.
	write := func(texts ...string) {
		for _, text := range texts {
			_ = binary.Write(h, binary.LittleEndian, int64(len(text)))
			h.Write([]byte(text))
		}
	}
	writeMap := func(m map[string]string) {
		_ = binary.Write(h, binary.LittleEndian, int64(len(m)))
		for _, key := range slices.Sorted(maps.Keys(m)) {
			write(key, m[key])
		}
	}
	_ = binary.Write(h, binary.LittleEndian, o.GetGeneration())
	var fields string
	if entry.FieldsV1 != nil {
		fields = entry.FieldsV1.String()
	}
	write(entry.APIVersion, fields)
	writeMap(o.GetLabels())
	writeMap(o.GetAnnotations())
	_ = binary.Write(h, binary.LittleEndian, int64(len(o.GetOwnerReferences())))
	for _, ref := range o.GetOwnerReferences() {
		write(ref.APIVersion, ref.Kind, ref.Name, string(ref.UID), flag(ref.Controller), flag(ref.BlockOwnerDeletion))
	}
	_ = binary.Write(h, binary.LittleEndian, int64(len(o.GetFinalizers())))
	write(o.GetFinalizers()...)
	return [sha256.Size]byte(h.Sum(nil))
}

// flag writes an optional bool as a text: unset, false or true.
func flag(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "t"
	default:
		return "f"
	}
}
