package cached

import (
	"crypto/sha256"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seed-operators/seed-operator/internal/apply"
)

// memoLimit is how many objects a digestMemo's newer half holds before it
// becomes the older one.
const memoLimit = 1024

// digestMemo remembers, for one kind's informer, the applied digest of
// each object by UID, with the fingerprint of what it was computed from
// (apply.AppliedInputs), so that a watch event that changed none of that,
// such as a Deployment's status update, does not compute it again. Objects
// the fingerprint cannot stand for (those without a generation) are not
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
	if m == nil || o.GetUID() == "" {
		return digestOfWhole(o)
	}
	fingerprint, ok := apply.AppliedInputs(o)
	if !ok {
		return digestOfWhole(o)
	}
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
