// Command operatorhub writes what a pull request to the community operators
// repository of OperatorHub.io adds for one version of the operator:
//
//	OUT/operators/PACKAGE/VERSION/   the bundle: manifests, metadata, tests
//	OUT/operators/PACKAGE/ci.yaml    the update graph mode
//
// That repository builds its catalog from these folders in semver-mode
// (graph.go), which reads a bundle's skip range from its CSV: the command
// writes the range the catalog gives the version into the CSV's
// olm.skipRange annotation, and fails unless semver-mode, applied to every
// version in the catalog, gives back the catalog's channels. OperatorHub
// users so get the update graph that users of catalog/ get.
//
// It then validates the folder it wrote as the repository's pipeline does
// (validate.go).
//
// The bundle of a version is read from the folder render-catalog reads it
// from (package bundledir).
//
// usage: operatorhub -version X.Y.Z -k8s-version V -out DIR [-catalog DIR] [-bundles DIR] [-current DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	"github.com/sirupsen/logrus"

	"github.com/seed-operators/seed-operator/hack/catalog/internal/bundledir"
)

const packageName = "seed-operator"

func main() {
	var w writer
	version := flag.String("version", "", "the version to write")
	flag.StringVar(&w.k8sVersion, "k8s-version", "", "the Kubernetes version the deprecated-API validator checks against")
	flag.StringVar(&w.out, "out", "", "the folder to write operators/"+packageName+"/ in: a clone of the community operators repository")
	flag.StringVar(&w.catalog, "catalog", "catalog", "the file-based catalog that publishes the version")
	flag.StringVar(&w.bundles, "bundles", "bundles", "the folder of released bundles, one folder per version")
	flag.StringVar(&w.current, "current", "bundle", "the bundle of the version under development")
	flag.Parse()
	v, err := semver.Parse(*version)
	if err != nil || w.k8sVersion == "" || w.out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	// opm's bundle loading logs at length on the happy path.
	logrus.SetOutput(io.Discard)

	if err := w.write(context.Background(), v); err != nil {
		fmt.Fprintf(os.Stderr, "operatorhub: %v\n", err)
		os.Exit(1)
	}
}

type writer struct {
	k8sVersion, out, catalog, bundles, current string
}

// write writes the folder of one version and the package's ci.yaml, after
// checking the catalog's graph, and validates the folder.
func (w writer) write(ctx context.Context, version semver.Version) error {
	cfg, err := declcfg.LoadFS(ctx, os.DirFS(w.catalog))
	if err != nil {
		return fmt.Errorf("loading the catalog %s: %w", w.catalog, err)
	}
	ranges, err := skipRanges(cfg, packageName)
	if err != nil {
		return err
	}
	dirs, err := w.bundleDirs(cfg, ranges)
	if err != nil {
		return err
	}
	src, ok := dirs[version.String()]
	if !ok {
		return fmt.Errorf("the catalog %s does not publish version %s: add it to catalog-templates/ and run make catalog", w.catalog, version)
	}

	pkg := filepath.Join(w.out, "operators", packageName)
	dst := filepath.Join(pkg, version.String())
	// A folder written before for this version may hold files the bundle
	// no longer has.
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := writeBundle(src, dst, ranges[packageName+".v"+version.String()]); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "ci.yaml"), []byte(ciYAML), 0o644); err != nil {
		return err
	}
	return validate(ctx, dst, w.k8sVersion)
}

// bundleDirs is the bundle folder of every version the catalog publishes,
// by version, once semver-mode is found to give the catalog's graph from
// those bundles with the catalog's skip ranges.
func (w writer) bundleDirs(cfg *declcfg.DeclarativeConfig, ranges map[string]string) (map[string]string, error) {
	dirs := map[string]string{}
	var releases []release
	for _, b := range cfg.Bundles {
		if b.Package != packageName {
			continue
		}
		props, err := property.Parse(b.Properties)
		if err != nil || len(props.Packages) != 1 {
			return nil, fmt.Errorf("bundle %s of the catalog: no single olm.package property (%v)", b.Name, err)
		}
		version, err := semver.Parse(props.Packages[0].Version)
		if err != nil {
			return nil, fmt.Errorf("bundle %s of the catalog: %w", b.Name, err)
		}
		dir := bundledir.Of(w.bundles, w.current, version)
		loaded, err := manifests.GetBundleFromDir(dir)
		if err != nil {
			return nil, fmt.Errorf("loading the bundle of %s from %s: %w", b.Name, dir, err)
		}
		if loaded.CSV.Name != b.Name {
			return nil, fmt.Errorf("%s holds %s, not %s of the catalog: run make bundle VERSION=%s", dir, loaded.CSV.Name, b.Name, version)
		}
		r := releaseOf(loaded)
		r.skipRange = ranges[b.Name]
		releases = append(releases, r)
		dirs[version.String()] = dir
	}
	want, err := catalogGraph(cfg, packageName)
	if err != nil {
		return nil, err
	}
	if d := want.diff(semverMode(releases)); d != "" {
		return nil, fmt.Errorf("semver-mode does not give the catalog's update graph:\n%s", d)
	}
	return dirs, nil
}
