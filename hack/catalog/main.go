// Command render-catalog renders the catalog template, an opm basic template
// (schema olm.template.basic), into a file-based catalog, as `opm alpha
// render-template basic` does. It differs in one thing: a bundle entry's
// image is rendered from the bundle directory in this repository that the
// image is built from, rather than pulled, so the catalog can be rendered
// where no registry is reachable (opm's template rendering accepts only
// images).
//
// The bundle of version X.Y.Z, named by an image tagged vX.Y.Z, is read from
// BUNDLES/X.Y.Z when that directory exists (a released version, frozen), and
// otherwise from CURRENT (the bundle `make bundle` writes), whose version
// must then be X.Y.Z.
//
// usage: render-catalog -template FILE [-bundles DIR] [-current DIR] [-inline]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/action"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	"github.com/operator-framework/operator-registry/alpha/template/basic"
	"github.com/sirupsen/logrus"

	"github.com/seed-operators/seed-operator/hack/catalog/internal/bundledir"
)

func main() {
	templateFile := flag.String("template", "", "the basic template to render")
	bundles := flag.String("bundles", "bundles", "the folder of released bundles, one folder per version")
	current := flag.String("current", "bundle", "the bundle of the version under development")
	inline := flag.Bool("inline", false,
		"leave every bundle's image empty, so OLM installs it from the manifests inlined in the catalog instead of pulling the image")
	flag.Parse()
	if *templateFile == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	// opm's bundle loading logs at length on the happy path.
	logrus.SetOutput(io.Discard)

	r := renderer{bundles: *bundles, current: *current, inline: *inline}
	if err := r.run(context.Background(), *templateFile, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "render-catalog: %v\n", err)
		os.Exit(1)
	}
}

type renderer struct {
	bundles, current string
	inline           bool
}

func (r renderer) run(ctx context.Context, templateFile string, out io.Writer) error {
	f, err := os.Open(templateFile)
	if err != nil {
		return err
	}
	// Only read: closing cannot lose anything.
	defer func() { _ = f.Close() }()
	cfg, err := (&basic.Factory{}).CreateTemplate(r.renderBundle).Render(ctx, f)
	if err != nil {
		return fmt.Errorf("rendering %s: %w", templateFile, err)
	}
	return declcfg.WriteYAML(*cfg, out)
}

// renderBundle renders the bundle an image is built from.
func (r renderer) renderBundle(ctx context.Context, image string) (*declcfg.DeclarativeConfig, error) {
	version, err := imageVersion(image)
	if err != nil {
		return nil, err
	}
	dir := bundledir.Of(r.bundles, r.current, version)
	render := action.Render{Refs: []string{dir}, AllowedRefMask: action.RefBundleDir}
	if !r.inline {
		// The template has no actions: the rendered image is the image
		// the template names.
		render.ImageRefTemplate = template.Must(template.New("image").Parse(image))
	}
	cfg, err := render.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("rendering bundle %s for %s: %w", dir, image, err)
	}
	for _, b := range cfg.Bundles {
		if err := checkVersion(b, version); err != nil {
			return nil, fmt.Errorf("bundle %s for %s: %w", dir, image, err)
		}
	}
	return cfg, nil
}

// imageVersion is the version an image's tag names, such as 1.2.3 for
// registry.example.com/bundle:v1.2.3.
func imageVersion(image string) (semver.Version, error) {
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return semver.Version{}, fmt.Errorf("bundle image %s has no tag to tell its version", image)
	}
	v, err := semver.Parse(strings.TrimPrefix(image[i+1:], "v"))
	if err != nil {
		return semver.Version{}, fmt.Errorf("bundle image %s: its tag is not a version: %w", image, err)
	}
	return v, nil
}

// checkVersion makes sure a rendered bundle is of the version its image
// names, so that a stale bundle directory is never published under a newer
// version.
func checkVersion(b declcfg.Bundle, want semver.Version) error {
	for _, p := range b.Properties {
		if p.Type != property.TypePackage {
			continue
		}
		var pkg property.Package
		if err := json.Unmarshal(p.Value, &pkg); err != nil {
			return err
		}
		if pkg.Version != want.String() {
			return fmt.Errorf("is version %s, not %s: run make bundle VERSION=%s", pkg.Version, want, want)
		}
		return nil
	}
	return fmt.Errorf("has no %s property", property.TypePackage)
}
