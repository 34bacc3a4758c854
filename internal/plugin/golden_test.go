package plugin

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "write the golden files from what the commands print")

// expectGolden compares got with testdata/name, or writes it there with
// -update.
func expectGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file (go test -update writes it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what was printed (go test -update writes it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// golden is one golden file, and what writes what it holds.
type golden struct {
	file  string
	write func(*bytes.Buffer) error
}

// expectGoldens compares each golden file with what its write writes.
func expectGoldens(t *testing.T, goldens []golden) {
	for _, g := range goldens {
		t.Run(g.file, func(t *testing.T) {
			var out bytes.Buffer
			if err := g.write(&out); err != nil {
				t.Fatal(err)
			}
			expectGolden(t, g.file, out.Bytes())
		})
	}
}
