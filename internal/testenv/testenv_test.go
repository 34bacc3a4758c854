package testenv

import (
	"os"
	"path/filepath"
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

// children are the pids and names of this process's children, which the
// kernel lists by the thread that started each.
func children(t *testing.T) []string {
	t.Helper()
	lists, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, list := range lists {
		pids, err := os.ReadFile(list)
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, pid := range strings.Fields(string(pids)) {
			comm, _ := os.ReadFile(filepath.Join("/proc", pid, "comm"))
			found = append(found, pid+" "+strings.TrimSpace(string(comm)))
		}
	}
	return found
}
