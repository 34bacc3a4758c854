package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A Start that fails once the control plane runs, here on CRDs that are not
// there, stops it: nothing it started is left running.
func TestStartStopsTheControlPlaneWhenItFails(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run the tests with `make test`, which builds the control plane")
	}
	t.Setenv("SNAPSHOT_CRDS", filepath.Join(t.TempDir(), "missing"))
	if _, err := Start(); err == nil {
		t.Fatal("Start succeeded without the snapshot CRDs")
	} else {
		t.Logf("Start failed as it should: %v", err)
	}
	if left := children(t); len(left) > 0 {
		t.Errorf("processes Start started are still running: %v", left)
	}
}

// children are the commands of this process's running children.
func children(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	parent := strconv.Itoa(os.Getpid())
	var found []string
	for _, path := range stats {
		stat, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, not ")".
		end := strings.LastIndexByte(string(stat), ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(string(stat)[end+1:])
		if len(fields) > 2 && fields[1] == parent && fields[0] != "Z" {
			found = append(found, string(stat)[:end+1])
		}
	}
	return found
}
