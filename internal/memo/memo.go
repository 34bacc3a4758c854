// Package memo remembers computed values by key, in bounded memory and
// without being told when a key stops mattering.
package memo

import "sync"

// Memo holds two halves of at most limit entries each: new entries go to
// the newer half, and when it is full the older half is dropped and the
// newer takes its place. An entry is thus remembered for at least limit
// and at most twice limit later entries, so that what is no longer asked
// for (the objects deleted since) is forgotten without a watch of
// deletions. Limit should exceed the number of keys in use at once, or
// they push each other out before they are asked for again. It is safe
// for concurrent use.
type Memo[K comparable, V any] struct {
	mu           sync.Mutex
	limit        int
	newer, older map[K]V
}

// New returns an empty Memo whose halves hold limit entries each.
func New[K comparable, V any](limit int) *Memo[K, V] {
	return &Memo[K, V]{limit: limit, newer: make(map[K]V)}
}

// Get returns the value remembered for key, if any.
func (m *Memo[K, V]) Get(key K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.newer[key]; ok {
		return v, true
	}
	v, ok := m.older[key]
	return v, ok
}

// Put remembers value for key.
func (m *Memo[K, V]) Put(key K, value V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.newer) >= m.limit {
		m.older, m.newer = m.newer, make(map[K]V, m.limit)
	}
	m.newer[key] = value
}

// Len is the number of entries remembered.
func (m *Memo[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.newer) + len(m.older)
}
