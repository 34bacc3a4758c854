package watch

import (
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

func TestNamespaces(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    map[string]cache.Config
		wantErr string
	}{
		{name: "unset watches all namespaces", value: "", want: nil},
		{name: "blank watches all namespaces", value: "  ", want: nil},
		{name: "one namespace", value: "team-a", want: map[string]cache.Config{"team-a": {}}},
		{
			name:  "a list with spaces and a repeat",
			value: "team-a, team-b,team-a",
			want:  map[string]cache.Config{"team-a": {}, "team-b": {}},
		},
		{name: "an empty entry", value: "team-a,,team-b", wantErr: `namespace "" is not valid`},
		{name: "an invalid name", value: "Team_A", wantErr: `namespace "Team_A" is not valid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := Namespaces(tt.value)
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
