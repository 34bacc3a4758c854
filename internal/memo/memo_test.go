package memo

import "testing"

// An entry stays for limit later entries, and goes before twice limit.
func TestMemoForgets(t *testing.T) {
	const limit = 4
	tests := []struct {
		name       string
		later      int
		remembered bool
	}{
		{name: "no later entry", later: 0, remembered: true},
		{name: "limit later entries", later: limit, remembered: true},
		{name: "twice limit later entries", later: 2 * limit, remembered: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New[int, string](limit)
			m.Put(0, "first")
			for i := 1; i <= tt.later; i++ {
				m.Put(i, "later")
			}
			got, ok := m.Get(0)
			if ok != tt.remembered || (ok && got != "first") {
				t.Errorf("Get(0) = %q, %t after %d later entries; want remembered %t", got, ok, tt.later, tt.remembered)
			}
			if m.Len() > 2*limit {
				t.Errorf("Len() = %d, want at most %d", m.Len(), 2*limit)
			}
		})
	}
}

// Putting a key again replaces its value.
func TestMemoReplaces(t *testing.T) {
	m := New[string, int](4)
	m.Put("a", 1)
	m.Put("a", 2)
	if got, ok := m.Get("a"); !ok || got != 2 {
		t.Errorf("Get(a) = %d, %t; want 2, true", got, ok)
	}
}
