package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// olmImages are OLM v0's image (its operators, packageserver and the
// tools of its bundle unpack Jobs) and opm's, which serves catalogs and
// extracts bundles, under the names OLM's manifests give them.
func olmImages(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{
		"OLM_DIR": in.olmDir, "OLM_VERSION": in.olmVersion, "OPM": in.opm, "OPM_VERSION": in.opmVersion,
		"GRPC_HEALTH_PROBE": in.grpcHealthProbe, debsEnv: in.debs,
	}); err != nil {
		return nil, err
	}
	cp, err := busyboxApplet(in.debs, "cp")
	if err != nil {
		return nil, err
	}
	files := append(olmUser.files(), cp...)
	for _, program := range olmPrograms {
		files = append(files, file{path: "/bin/" + program, source: filepath.Join(in.olmDir, program), mode: 0o755})
	}
	index, err := emptyIndexImage("seed-infra/empty-index:"+in.opmVersion, in)
	if err != nil {
		return nil, err
	}
	return map[string]spec{
		olmSet: {
			name:   "operator-framework/olm:" + in.olmVersion,
			files:  files,
			config: v1.Config{User: olmUser.user(), Env: []string{binPath}, WorkingDir: "/"},
		},
		"opm":         opmImage("operator-framework/opm:"+in.opmVersion, in),
		"empty-index": index,
	}, nil
}

// binPath is the PATH of images whose programs are all in /bin.
const binPath = "PATH=/bin"

// olmUser runs OLM's images, as upstream's do.
var olmUser = account{name: "olm", id: 1001}

// olmPrograms are the programs of OLM's image, in its /bin.
var olmPrograms = []string{"olm", "catalog", "package-server", "copy-content", "cpb"}

// configsDir is where a catalog image holds its file-based catalog, and
// configsLabel the label that says so.
const (
	configsDir   = "/configs"
	configsLabel = "operators.operatorframework.io.index.configs.v1"
)

// opmImage is opm and the health probe OLM runs in catalog pods, as
// catalog.Dockerfile expects of its base.
func opmImage(name string, in inputs) spec {
	return spec{
		name: name,
		files: append(olmUser.files(),
			// Go's resolver reads it; opm writes it when it is missing.
			file{path: "/etc/nsswitch.conf", content: []byte("hosts: files dns\n")},
			file{path: "/bin/opm", source: in.opm, mode: 0o755},
			file{path: "/bin/grpc_health_probe", source: in.grpcHealthProbe, mode: 0o755}),
		config: v1.Config{Entrypoint: []string{"/bin/opm"}, User: olmUser.user(), Env: []string{binPath}, WorkingDir: "/"},
	}
}

// emptyIndexImage is a catalog image with no package, for operator-sdk
// run bundle's --index-image: the CLI adds the bundle to the catalog the
// image holds (none here), and runs `sh -c "opm serve ..."` in it.
func emptyIndexImage(name string, in inputs) (spec, error) {
	sh, err := busyboxApplet(in.debs, "sh")
	if err != nil {
		return spec{}, err
	}
	index := opmImage(name, in)
	// opm serve keeps its cache in a temporary folder.
	index.files = append(append(index.files, sh...), file{path: configsDir, mode: 0o755}, file{path: "/tmp", mode: 0o1777})
	index.config.Cmd = []string{"serve", configsDir}
	index.config.Labels = map[string]string{configsLabel: configsDir}
	return index, nil
}

// catalogImages are what a user of the catalog pulls: the catalog, and the
// bundle and manager images of every released version it names; and the
// catalog as the last release published it, which users on Automatic
// approval had when the new version came. The version under development
// is the operator set's; the images the custom resources default to are
// stood in for by the infra and test sets.
func catalogImages(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{
		"CATALOG_DIR": in.catalogDir, "CATALOG_CACHE": in.catalogCache, "RELEASES": in.releases,
		"RELEASED_MANAGERS": in.releasedManagers, "INSTALLED_RELEASES": in.installedReleases, "IMAGE_TAG_BASE": in.imageBase, "VERSION": in.version,
		"PREVIOUS_VERSION": in.previousVersion, "PREVIOUS_CATALOG_DIR": in.previousCatalogDir,
		"PREVIOUS_CATALOG_CACHE": in.previousCatalogCache,
	}); err != nil {
		return nil, err
	}
	repository := repositoryOf(in.imageBase)
	catalog, err := catalogImage(repository+"-catalog:v"+in.version, in.catalogDir, in.catalogCache, in)
	if err != nil {
		return nil, err
	}
	previous, err := catalogImage(repository+"-catalog:v"+in.previousVersion, in.previousCatalogDir, in.previousCatalogCache, in)
	if err != nil {
		return nil, err
	}
	images := map[string]spec{catalogSet: catalog, catalogSet + "-" + in.previousVersion: previous}

	versions, err := os.ReadDir(in.releases)
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		version := v.Name()
		bundle, err := bundleImage(repository+"-bundle:v"+version, filepath.Join(in.releases, version))
		if err != nil {
			return nil, err
		}
		images["bundle-"+version] = bundle
	}
	// The managers of the versions the OLM suite installs: the catalog
	// names the others' too, but nothing runs them.
	for _, version := range strings.Fields(in.installedReleases) {
		if _, ok := images["bundle-"+version]; !ok {
			return nil, fmt.Errorf("INSTALLED_RELEASES names %s, which is not a released version in %s", version, in.releases)
		}
		images["operator-"+version] = program(repository+":v"+version, filepath.Join(in.releasedManagers, version, "manager"), "/manager")
	}

	return images, nil
}

// catalogImage is the catalog image as catalog.Dockerfile builds it: on
// opm's image, the file-based catalog of catalogDir in /configs and opm's
// cache of it, which opm serves at once rather than building it in every
// pod.
func catalogImage(name, catalogDir, catalogCache string, in inputs) (spec, error) {
	catalog := opmImage(name, in)
	// The cache belongs to the user that serves it, as when
	// catalog.Dockerfile's build runs opm: opm locks it, even to read it.
	for _, tree := range []struct {
		dir, at string
		uid     int
	}{{catalogDir, configsDir, 0}, {catalogCache, "/tmp/cache", olmUser.id}} {
		files, err := treeFiles(tree.dir, tree.at, tree.uid)
		if err != nil {
			return spec{}, err
		}
		catalog.files = append(catalog.files, files...)
	}
	catalog.config.Cmd = []string{"serve", configsDir, "--cache-dir=/tmp/cache"}
	catalog.config.Labels = map[string]string{configsLabel: configsDir}
	return catalog, nil
}

// treeFiles are the folders and regular files under dir, dir included, at
// the same relative paths under at, owned by uid.
func treeFiles(dir, at string, uid int) ([]file, error) {
	var files []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f := file{path: path.Join(at, filepath.ToSlash(rel)), uid: uid}
		switch {
		case d.IsDir():
			f.mode = 0o755
		case d.Type().IsRegular():
			f.source, f.mode = p, 0o644
		default:
			return fmt.Errorf("%s: neither a folder nor a regular file", p)
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

// busyboxApplet is Debian's static busybox with one applet's link, for an
// image that needs only that command.
func busyboxApplet(debs, applet string) ([]file, error) {
	all, err := busyboxFiles(debs)
	if err != nil {
		return nil, err
	}
	var files []file
	for _, f := range all {
		if name := strings.TrimPrefix(f.path, "/bin/"); name == busybox || name == applet {
			files = append(files, f)
		}
	}
	if len(files) != 2 {
		return nil, fmt.Errorf("busybox has no %s applet", applet)
	}
	return files, nil
}

// olmv1Images are OLM v1's: operator-controller and catalogd, each a static
// program on distroless/static as upstream's Dockerfiles lay them out (its
// writable /tmp included, where both unpack images).
func olmv1Images(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{"OLMV1_DIR": in.olmv1Dir, "OLMV1_VERSION": in.olmv1Version}); err != nil {
		return nil, err
	}
	images := map[string]spec{}
	for _, name := range olmv1Programs {
		images[name] = program("operator-framework/"+name+":"+in.olmv1Version, filepath.Join(in.olmv1Dir, name), "/"+name)
	}
	return images, nil
}

// olmv1Programs are OLM v1's programs, each the only one of its image.
var olmv1Programs = []string{"operator-controller", "catalogd"}
