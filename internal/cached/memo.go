package cached

import (
	"crypto/sha256"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/apply"
	"github.com/seed-operators/seed-operator/internal/memo"
)

// memoLimit is how many objects each half of a digestMemo holds
// (memo.Memo).
const memoLimit = 1024

// digestMemo remembers, for one kind's informer, the applied digest of
// each object by UID, with the fingerprint of what it was computed from
// (apply.AppliedInputs), so that a watch event that changed none of that,
// such as a Deployment's status update, does not compute it again. Objects
// the fingerprint cannot stand for (those without a generation) are not
// remembered.
type digestMemo struct {
	entries *memo.Memo[types.UID, memoEntry]
}

type memoEntry struct {
	fingerprint [sha256.Size]byte
	digest      string
}

func newDigestMemo() *digestMemo {
	return &digestMemo{entries: memo.New[types.UID, memoEntry](memoLimit)}
}

// digest is digestOfWhole of o, remembered. A nil memo remembers nothing.
func (m *digestMemo) digest(o client.Object) (string, bool) {
	if m == nil || o.GetUID() == "" {
		return digestOfWhole(o)
	}
	fingerprint, ok := apply.AppliedInputs(o)
	if !ok {
		return digestOfWhole(o)
	}
	if remembered, ok := m.entries.Get(o.GetUID()); ok && remembered.fingerprint == fingerprint {
		return remembered.digest, true
	}
	sum, ok := digestOfWhole(o)
	if !ok {
		return "", false
	}
	m.entries.Put(o.GetUID(), memoEntry{fingerprint: fingerprint, digest: sum})
	return sum, true
}
