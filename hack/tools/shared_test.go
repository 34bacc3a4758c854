// Package tools checks that the programs the Makefile builds compile the
// Kubernetes libraries once between them. The go command reuses a
// compiled package only when its version, its files (which build tags
// select), the Go release and every package it imports agree, so a module
// that resolves k8s.io/api to another version, or golang.org/x/net or any
// other module under the Kubernetes libraries, or a recipe with other
// tags, compiles them all again: minutes on a cold machine, and nothing
// else would tell.
package tools

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// modules lists the folders of the go.mod files the Makefile builds from,
// relative to this one: the operator's, hack/'s, and every one here.
func modules(t *testing.T) []string {
	t.Helper()
	tools, err := filepath.Glob("*/go.mod")
	if err != nil || len(tools) == 0 {
		t.Fatalf("no module under hack/tools: %v", err)
	}
	dirs := append(make([]string, 0, 3+len(tools)), "../..", "../catalog", "../images")
	for _, file := range tools {
		dirs = append(dirs, filepath.Dir(file))
	}
	return dirs
}

// apart are the modules that cannot build with the Kubernetes libraries'
// shared versions, and why: they share nothing above those. A module
// listed here that resolves every module it builds from as the others do
// fails the test too, so that the list says what is true.
var apart = map[string]string{
	"monitoring": "prometheus-operator v0.85.0 calls controller-runtime 0.22's conversion webhook, which 0.25 changed",
	"olmv1":      "operator-controller v1.2.0 calls client-go 0.32's reflector error handler, which 0.37 changed",
}

// The Kubernetes libraries each module requires, read from the go.mod
// files alone: make test runs this on a fresh clone without downloading
// every tool's sources, which the check of what the programs compile
// (resolved_test.go, make test-hack) needs.
func TestModulesRequireTheKubernetesLibrariesTheOperatorDoes(t *testing.T) {
	kubernetes := regexp.MustCompile(`^(k8s\.io|sigs\.k8s\.io)/`)
	required := map[string]map[string]string{}
	for _, dir := range modules(t) {
		required[dir] = map[string]string{}
		for path, version := range requires(t, dir) {
			if kubernetes.MatchString(path) {
				required[dir][path] = version
			}
		}
	}
	if required["cluster"]["k8s.io/api"] == "" || required["../.."]["sigs.k8s.io/controller-runtime"] == "" {
		t.Fatalf("the cluster's go.mod names no k8s.io/api, or the operator's no controller-runtime: the test reads the wrong files")
	}
	expectShared(t, required, "requires")
}

// requires are the versions a module's go.mod requires, its replacements'
// where it replaces a module.
func requires(t *testing.T, dir string) map[string]string {
	t.Helper()
	file := goMod(t, dir)
	versions := map[string]string{}
	for _, req := range file.Require {
		versions[req.Mod.Path] = req.Mod.Version
	}
	for _, rep := range file.Replace {
		if rep.New.Version != "" {
			versions[rep.Old.Path] = rep.New.Version
		}
	}
	return versions
}

// goMod is the module's go.mod, parsed.
func goMod(t *testing.T, dir string) *modfile.File {
	t.Helper()
	path := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return file
}

// expectShared fails unless every module but those apart agrees, on every
// module path it and the others name, with the operator's versions and the
// local cluster's for the modules the operator does not use: both compile
// most of what the others do. versions maps each module folder to the
// versions it resolves, which verb says how.
func expectShared(t *testing.T, versions map[string]map[string]string, verb string) {
	t.Helper()
	want := map[string]string{}
	for _, dir := range []string{"../..", "cluster"} {
		for path, version := range versions[dir] {
			if other, ok := want[path]; ok && other != version {
				t.Errorf("the operator %s %s %s, the local cluster's module %s", verb, path, other, version)
			}
			want[path] = version
		}
	}
	for dir := range versions {
		var differ []string
		for path, version := range versions[dir] {
			if other, ok := want[path]; ok && other != version {
				differ = append(differ, path+" "+version+" (not "+other+")")
			}
		}
		slices.Sort(differ)
		why, isApart := apart[dir]
		switch {
		case len(differ) > 0 && !isApart:
			t.Errorf("%s %s %s: so its programs compile those libraries again; require the operator's or the local cluster's versions in its go.mod (or raise theirs, when its own are newer)", dir, verb, strings.Join(differ, ", "))
		case len(differ) == 0 && isApart:
			t.Errorf("%s %s every module at the shared version: remove it from apart (%q)", dir, verb, why)
		}
	}
}

// buildTags are the tags of GOFLAGS, which the Makefile exports.
func buildTags(t *testing.T) string {
	t.Helper()
	match := regexp.MustCompile(`-tags=(\S+)`).FindStringSubmatch(os.Getenv("GOFLAGS"))
	if match == nil {
		t.Fatalf("GOFLAGS is %q, with no -tags=: run the tests as make test does, which exports the Makefile's", os.Getenv("GOFLAGS"))
	}
	return match[1]
}

// The Makefile runs every go command with one Go release, GOTOOLCHAIN: a
// module whose go.mod asked for a newer one would not build, and one left
// to pick its own would compile everything with another.
func TestModulesBuildWithTheMakefilesGoRelease(t *testing.T) {
	toolchain := os.Getenv("GOTOOLCHAIN")
	if !regexp.MustCompile(`^go1\.\d+\.\d+$`).MatchString(toolchain) {
		t.Fatalf("GOTOOLCHAIN is %q, not one Go release: run the tests as make test does, which exports the Makefile's", toolchain)
	}
	if runtime.Version() != toolchain {
		t.Errorf("the tests run with %s, not the Makefile's %s", runtime.Version(), toolchain)
	}
	for _, dir := range modules(t) {
		file := goMod(t, dir)
		path := filepath.Join(dir, "go.mod")
		switch {
		case file.Go == nil:
			t.Errorf("%s names no Go version", path)
		case semver.Compare("v"+file.Go.Version, "v"+strings.TrimPrefix(toolchain, "go")) > 0:
			t.Errorf("%s asks for Go %s, newer than the Makefile's %s", path, file.Go.Version, toolchain)
		}
		if file.Toolchain != nil {
			t.Errorf("%s names the toolchain %s: the Makefile's GOTOOLCHAIN decides", path, file.Toolchain.Name)
		}
	}
}

// Every go command the Makefile runs takes the build tags of GOFLAGS, which
// it exports. A recipe may add tags of its own, which select files of that
// program alone (knownTags): with any other, or with fewer, the packages
// it shares with the other programs compile again.
func TestRecipesBuildWithTheSharedTags(t *testing.T) {
	tags := regexp.MustCompile(`-tags[= ]"?([^" ]*)"?`)
	want := strings.Split(buildTags(t), ",")
	// Every program's recipe, as make would run it on a fresh clone.
	cmd := exec.Command("make", "--dry-run", "--always-make", "--no-print-directory", "LOCALBIN="+t.TempDir(), "programs")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MAKELEVEL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make --dry-run programs: %v", stderr(err))
	}
	builds := 0
	for scanner := bufio.NewScanner(bytes.NewReader(out)); scanner.Scan(); {
		line := scanner.Text()
		if !regexp.MustCompile(`\bgo (build|install|test) `).MatchString(line) {
			continue
		}
		builds++
		match := tags.FindStringSubmatch(line)
		if match == nil {
			continue // GOFLAGS' tags
		}
		got := strings.Split(match[1], ",")
		for _, tag := range want {
			if !slices.Contains(got, tag) {
				t.Errorf("a recipe builds without the tag %s of GOFLAGS: %s", tag, line)
			}
		}
		for _, tag := range got {
			if !slices.Contains(want, tag) && knownTags[tag] == "" {
				t.Errorf("a recipe adds the tag %s, which may change what the programs share; if it selects files of that program alone, add it to knownTags: %s", tag, line)
			}
		}
	}
	if builds < 20 {
		t.Fatalf("make --dry-run programs printed %d go builds; the test reads the wrong target:\n%s", builds, out)
	}
}

// knownTags are the tags a recipe may add, each selecting files of its own
// program alone.
var knownTags = map[string]string{
	"remove_all_sd":        "Prometheus: leaves out its service discoveries",
	"enable_kubernetes_sd": "Prometheus: puts Kubernetes' back",
	"no_btrfs":             "containerd: leaves out a snapshotter",
	"no_devmapper":         "containerd: leaves out a snapshotter",
	"no_zfs":               "containerd: leaves out a snapshotter",
	"no_grpc":              "containerd's shim: leaves out its gRPC server",
	"urfave_cli_no_docs":   "containerd: leaves out its CLI's documentation writer",
}

func stderr(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return errors.New(err.Error() + ": " + string(exit.Stderr))
	}
	return err
}
