package testenv

import (
	"slices"
	"testing"
)

func TestDecodeObjects(t *testing.T) {
	tests := []struct {
		name      string
		manifests string
		kinds     []string
		wantErr   bool
	}{
		{name: "nothing", manifests: "", kinds: nil},
		{name: "empty documents left out", manifests: "---\n---\nkind: A\n---\n\n---\nkind: B\n", kinds: []string{"A", "B"}},
		{name: "JSON", manifests: `{"kind": "A"}`, kinds: []string{"A"}},
		{name: "not YAML", manifests: "kind: A\n---\nkind: [B\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := DecodeObjects([]byte(tt.manifests))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %t", err, tt.wantErr)
			}
			var kinds []string
			for _, obj := range objs {
				kinds = append(kinds, obj.GetKind())
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Fatalf("kinds %v, want %v", kinds, tt.kinds)
			}
		})
	}
}
