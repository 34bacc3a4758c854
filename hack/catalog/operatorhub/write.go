package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// ciYAML is the package's ci.yaml in the community operators repository:
// the update graph mode that gives the catalog's graph (semverMode).
const ciYAML = `# The community operators pipeline builds the update graph of this package
# in semver-mode: each channel holds the bundles whose annotations name it,
# each replacing the next lower version, with the CSVs' olm.skipRange. It is
# the graph of catalog/ in the seed-operator repository (make operatorhub
# checks it).
updateGraph: semver-mode
`

// writeBundle copies the bundle folder src to dst, with skipRange as the
// CSV's olm.skipRange annotation when it is not empty.
func writeBundle(src, dst, skipRange string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if data, err = annotateCSV(data, skipRange); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// annotateCSV returns a manifest as it is, unless it is a CSV and skipRange
// is set: then with the olm.skipRange annotation.
func annotateCSV(manifest []byte, skipRange string) ([]byte, error) {
	if skipRange == "" {
		return manifest, nil
	}
	var obj map[string]any
	if err := yaml.Unmarshal(manifest, &obj); err != nil {
		return nil, err
	}
	if obj["kind"] != "ClusterServiceVersion" {
		return manifest, nil
	}
	metadata, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the CSV has no metadata")
	}
	annotations, _ := metadata["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	annotations[skipRangeAnnotation] = skipRange
	metadata["annotations"] = annotations
	return yaml.Marshal(obj)
}
