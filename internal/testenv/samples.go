package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Samples are the objects config/samples holds, in the order its
// kustomization lists them.
func Samples() ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(ProjectRoot(), "config", "samples")
	var kustomization struct {
		Resources []string `json:"resources"`
	}
	if err := ReadYAML(filepath.Join(dir, "kustomization.yaml"), &kustomization); err != nil {
		return nil, err
	}
	samples := make([]*unstructured.Unstructured, 0, len(kustomization.Resources))
	for _, file := range kustomization.Resources {
		sample := &unstructured.Unstructured{}
		if err := ReadYAML(filepath.Join(dir, file), &sample.Object); err != nil {
			return nil, err
		}
		samples = append(samples, sample)
	}
	return samples, nil
}

// ReadYAML decodes one YAML document.
func ReadYAML(file string, into any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		return fmt.Errorf("decoding %s: %w", file, err)
	}
	return nil
}

// DecodeObjects decodes the objects of a stream of YAML or JSON documents,
// as kustomize build and helm template print them; empty documents are
// left out.
func DecodeObjects(manifests []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifests), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding object %d: %w", len(objs)+1, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}
