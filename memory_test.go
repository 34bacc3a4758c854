package main

import "testing"

func TestGoMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name, containerLimit string
		want                 int64
		wantErr              bool
	}{
		{name: "no limit given", containerLimit: "", want: 0},
		{name: "the manifests' 256Mi", containerLimit: "268435456", want: 228170090},
		{name: "1Gi", containerLimit: "1073741824", want: 912680530},
		{name: "a quantity, not bytes", containerLimit: "256Mi", wantErr: true},
		{name: "zero", containerLimit: "0", wantErr: true},
		{name: "negative", containerLimit: "-1", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := goMemoryLimit(tc.containerLimit)
			if (err != nil) != tc.wantErr {
				t.Fatalf("goMemoryLimit(%q) error = %v, want an error: %v", tc.containerLimit, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("goMemoryLimit(%q) = %d, want %d", tc.containerLimit, got, tc.want)
			}
		})
	}
}
