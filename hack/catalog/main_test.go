package main

import (
	"encoding/json"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

func TestImageVersion(t *testing.T) {
	tests := []struct {
		image, want string
		wantErr     bool
	}{
		{image: "quay.io/seed-operators/seed-operator-bundle:v0.2.0", want: "0.2.0"},
		{image: "registry.example.com:5000/bundle:1.2.3-rc.1", want: "1.2.3-rc.1"},
		{image: "registry.example.com:5000/bundle", wantErr: true},
		{image: "quay.io/seed-operators/seed-operator-bundle:latest", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			got, err := imageVersion(tt.image)
			if (err != nil) != tt.wantErr {
				t.Fatalf("imageVersion(%q) error = %v, want an error: %t", tt.image, err, tt.wantErr)
			}
			if err == nil && got.String() != tt.want {
				t.Errorf("imageVersion(%q) = %s, want %s", tt.image, got, tt.want)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	bundle := func(version string) declcfg.Bundle {
		value, _ := json.Marshal(property.Package{PackageName: "seed-operator", Version: version})
		return declcfg.Bundle{Properties: []property.Property{{Type: property.TypePackage, Value: value}}}
	}
	want := semver.MustParse("0.2.0")
	if err := checkVersion(bundle("0.2.0"), want); err != nil {
		t.Errorf("the right version: %v", err)
	}
	if err := checkVersion(bundle("0.1.0"), want); err == nil {
		t.Error("a stale bundle passed for a newer version")
	}
	if err := checkVersion(declcfg.Bundle{}, want); err == nil {
		t.Error("a bundle without a package property passed")
	}
}
