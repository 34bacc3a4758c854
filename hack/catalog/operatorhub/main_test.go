package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

// root is the repository's root, from this package's folder.
const root = "../../.."

// repoWriter writes from the repository's catalog and bundle folders, with
// the Kubernetes version the project builds with, as make operatorhub does.
func repoWriter(t *testing.T) writer {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "hack", "tools", "cluster", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v\S+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("hack/tools/cluster/go.mod requires no k8s.io/kubernetes")
	}
	return writer{
		k8sVersion: string(m[1]),
		out:        t.TempDir(),
		catalog:    filepath.Join(root, "catalog"),
		bundles:    filepath.Join(root, "bundles"),
		current:    filepath.Join(root, "bundle"),
	}
}

// Every version the catalog publishes makes a valid OperatorHub folder, and
// the community pipeline's semver-mode builds the catalog's graph from them.
func TestEveryPublishedVersion(t *testing.T) {
	ctx := context.Background()
	w := repoWriter(t)
	cfg, err := declcfg.LoadFS(ctx, os.DirFS(w.catalog))
	if err != nil {
		t.Fatal(err)
	}
	ranges, err := skipRanges(cfg, packageName)
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(w.out, "operators", packageName)
	releases := make([]release, 0, len(cfg.Bundles))
	for _, b := range cfg.Bundles {
		props, err := property.Parse(b.Properties)
		if err != nil {
			t.Fatal(err)
		}
		version := props.Packages[0].Version
		if err := w.write(ctx, semver.MustParse(version)); err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		written, err := manifests.GetBundleFromDir(filepath.Join(pkg, version))
		if err != nil {
			t.Fatal(err)
		}
		if got := written.CSV.Annotations[skipRangeAnnotation]; got != ranges[b.Name] {
			t.Errorf("%s: olm.skipRange %q, the catalog's range is %q", b.Name, got, ranges[b.Name])
		}
		releases = append(releases, releaseOf(written))
	}
	if len(releases) < 2 {
		t.Fatalf("the catalog publishes %d versions: no upgrade graph to check", len(releases))
	}

	want, err := catalogGraph(cfg, packageName)
	if err != nil {
		t.Fatal(err)
	}
	if d := want.diff(semverMode(releases)); d != "" {
		t.Errorf("semver-mode on the written folders does not give the catalog's graph:\n%s", d)
	}
	ci, err := os.ReadFile(filepath.Join(pkg, "ci.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^updateGraph: semver-mode$`).Match(ci) {
		t.Errorf("ci.yaml does not choose semver-mode:\n%s", ci)
	}
}

func TestRefusals(t *testing.T) {
	ctx := context.Background()

	w := repoWriter(t)
	if err := w.write(ctx, semver.MustParse("9.9.9")); err == nil || !strings.Contains(err.Error(), "does not publish version 9.9.9") {
		t.Errorf("a version the catalog does not publish: %v", err)
	}

	// A catalog whose graph semver-mode cannot build: 0.2.1 replacing
	// 0.1.0 straight, past 0.2.0.
	w = repoWriter(t)
	cfg, err := declcfg.LoadFS(ctx, os.DirFS(w.catalog))
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range cfg.Channels {
		for j, e := range ch.Entries {
			if e.Name == packageName+".v0.2.1" && e.Replaces != "" {
				cfg.Channels[i].Entries[j].Replaces = packageName + ".v0.1.0"
			}
		}
	}
	w.catalog = t.TempDir()
	f, err := os.Create(filepath.Join(w.catalog, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := declcfg.WriteYAML(*cfg, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.write(ctx, semver.MustParse("0.2.1")); err == nil || !strings.Contains(err.Error(), "channel stable:") {
		t.Errorf("a graph semver-mode cannot build: %v", err)
	}
}
