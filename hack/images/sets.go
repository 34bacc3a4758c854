package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"sigs.k8s.io/yaml"
)

// inputs are what the images are made of, as the Makefile names them.
type inputs struct {
	pause, coredns, localPathProvisioner, metricsServer, fetch string
	corednsVersion, localPathVersion, metricsServerVersion     string
	// The CSI driver's and its sidecars' programs, and their versions.
	csiDir, csiVersion string
	// debs holds the Debian packages of busybox and nginx.
	debs string
	// The operator's: its programs, its bundle, and where its images go.
	manager, scorecard, bundleDir, imageBase, version string
	// operator-sdk's scorecard-test program, and its version.
	scorecardTest, operatorSDKVersion string
	// OLM's and opm's programs, and the catalog: its folder, opm's cache
	// of it, the released bundles' folders and their managers, by version;
	// and the catalog as the last release published it, with its cache.
	olmDir, olmVersion, opm, opmVersion, grpcHealthProbe      string
	catalogDir, catalogCache, releases, releasedManagers      string
	installedReleases                                         string
	previousVersion, previousCatalogDir, previousCatalogCache string
	// OLM v1's programs, and its version.
	olmv1Dir, olmv1Version string
	// prometheus-operator's programs and Prometheus, and their versions.
	monitoringDir, prometheusOperatorVersion, prometheus, prometheusVersion string
}

func inputsFromEnv() inputs {
	return inputs{
		pause: os.Getenv("PAUSE"), coredns: os.Getenv("COREDNS"), localPathProvisioner: os.Getenv("LOCAL_PATH_PROVISIONER"),
		metricsServer: os.Getenv("METRICS_SERVER"), metricsServerVersion: os.Getenv("METRICS_SERVER_VERSION"),
		csiDir: os.Getenv("CSI_DIR"), csiVersion: os.Getenv("CSI_VERSION"),
		fetch: os.Getenv("FETCH"), corednsVersion: os.Getenv("COREDNS_VERSION"), localPathVersion: os.Getenv("LOCAL_PATH_PROVISIONER_VERSION"),
		debs: os.Getenv(debsEnv), manager: os.Getenv("MANAGER"), scorecard: os.Getenv("SEED_SCORECARD"),
		bundleDir: os.Getenv("BUNDLE_DIR"), imageBase: os.Getenv("IMAGE_TAG_BASE"), version: os.Getenv("VERSION"),
		olmDir: os.Getenv("OLM_DIR"), olmVersion: os.Getenv("OLM_VERSION"), opm: os.Getenv("OPM"), opmVersion: os.Getenv("OPM_VERSION"),
		grpcHealthProbe: os.Getenv("GRPC_HEALTH_PROBE"), catalogDir: os.Getenv("CATALOG_DIR"), catalogCache: os.Getenv("CATALOG_CACHE"),
		releases: os.Getenv("RELEASES"), releasedManagers: os.Getenv("RELEASED_MANAGERS"), installedReleases: os.Getenv("INSTALLED_RELEASES"),
		previousVersion: os.Getenv("PREVIOUS_VERSION"), previousCatalogDir: os.Getenv("PREVIOUS_CATALOG_DIR"),
		previousCatalogCache: os.Getenv("PREVIOUS_CATALOG_CACHE"),
		scorecardTest:        os.Getenv("SCORECARD_TEST"), operatorSDKVersion: os.Getenv("OPERATOR_SDK_VERSION"),
		olmv1Dir: os.Getenv("OLMV1_DIR"), olmv1Version: os.Getenv("OLMV1_VERSION"),
		monitoringDir: os.Getenv("MONITORING_DIR"), prometheusOperatorVersion: os.Getenv("PROMETHEUS_OPERATOR_VERSION"),
		prometheus: os.Getenv("PROMETHEUS"), prometheusVersion: os.Getenv("PROMETHEUS_VERSION"),
	}
}

// sets are the images `images push SET` makes, by set and key.
var sets = map[string]func(inputs) (map[string]spec, error){
	"infra":       infraImages,
	"test":        testImages,
	"operator":    operatorImages,
	olmSet:        olmImages,
	catalogSet:    catalogImages,
	"olmv1":       olmv1Images,
	monitoringSet: monitoringImages,
}

// The sets of OLM, which name their main image too.
const (
	olmSet     = "olm"
	catalogSet = "catalog"
)

// debsEnv names the folder of Debian's packages.
const debsEnv = "DEBS"

// infraImages run the real node's own pods: its sandboxes, CoreDNS, the
// volume provisioner, metrics-server, the CSI driver with its sidecars,
// and busybox for the provisioner's helper pods and for tests.
func infraImages(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{
		"PAUSE": in.pause, "COREDNS": in.coredns, "COREDNS_VERSION": in.corednsVersion,
		"LOCAL_PATH_PROVISIONER": in.localPathProvisioner, "LOCAL_PATH_PROVISIONER_VERSION": in.localPathVersion,
		"METRICS_SERVER": in.metricsServer, "METRICS_SERVER_VERSION": in.metricsServerVersion,
		"CSI_DIR": in.csiDir, "CSI_VERSION": in.csiVersion,
		"FETCH": in.fetch, debsEnv: in.debs,
	}); err != nil {
		return nil, err
	}
	busyboxes, err := busyboxFiles(in.debs)
	if err != nil {
		return nil, err
	}
	pause := program("seed-infra/pause:3.10", in.pause, "/pause")
	pause.config.User = "65535:65535"
	// Busybox as Debian ships it, runs as root (the provisioner's helper
	// makes directories on the node), and the fetch program for tests,
	// whose busybox wget is not to be trusted.
	box := spec{
		name: "seed-infra/busybox:" + debianVersion(in.debs, "busybox-static"),
		files: append(append(busyboxes, account{name: "nobody", id: 65534}.files()...),
			file{path: "/usr/local/bin/fetch", source: in.fetch, mode: 0o755}),
		config: v1.Config{Cmd: []string{"sh"}, Env: []string{"PATH=/usr/local/bin:/bin"}},
	}
	return map[string]spec{
		"pause":                  pause,
		"coredns":                program("seed-infra/coredns:"+in.corednsVersion, in.coredns, "/coredns"),
		"local-path-provisioner": program("seed-infra/local-path-provisioner:"+in.localPathVersion, in.localPathProvisioner, "/local-path-provisioner"),
		"metrics-server":         program("seed-infra/metrics-server:"+in.metricsServerVersion, in.metricsServer, "/metrics-server"),
		"csi-tmpfs":              csiImage(in),
		busybox:                  box,
		"upstream-busybox":       standIn(box, "library/busybox:1.37.0"),
		// operator-sdk run bundle-upgrade unpacks the catalog it serves
		// with registry.access.redhat.com's ubi, which no flag changes:
		// it needs a shell, cat and gzip.
		"upstream-ubi": standIn(box, "ubi9/ubi:9.7"),
	}, nil
}

// csiPrograms are the CSI driver and its sidecars, in one image: they run
// in one pod.
var csiPrograms = []string{"csi-tmpfs", "csi-provisioner", "csi-resizer", "csi-snapshotter", "snapshot-controller"}

// csiImage runs as root: the driver mounts volumes on the node, and the
// sidecars talk to it on the socket it makes.
func csiImage(in inputs) spec {
	files := make([]file, 0, len(csiPrograms))
	for _, program := range csiPrograms {
		files = append(files, file{path: "/bin/" + program, source: filepath.Join(in.csiDir, program), mode: 0o755})
	}
	return spec{
		name:   "seed-infra/csi-tmpfs:" + in.csiVersion,
		files:  files,
		config: v1.Config{User: "0:0", Env: []string{binPath}, WorkingDir: "/"},
	}
}

// standIn is an image under the upstream name a custom resource's default
// names, so that the alm-examples and samples run as they are on the
// local cluster, whose registry serves every registry name.
func standIn(s spec, upstream string) spec {
	s.name = upstream
	return s
}

// nginxConfig serves the page on 8080, unprivileged, with every file it
// writes in /tmp, as the WebServer's pods have it writable.
const nginxConfig = `worker_processes 1;
error_log stderr warn;
pid /tmp/nginx.pid;
events {
    worker_connections 256;
}
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log /dev/stdout;
    client_body_temp_path /tmp/client_body;
    proxy_temp_path /tmp/proxy;
    fastcgi_temp_path /tmp/fastcgi;
    uwsgi_temp_path /tmp/uwsgi;
    scgi_temp_path /tmp/scgi;
    server {
        listen 8080;
        root /usr/share/nginx/html;
    }
}
`

// testImages are the operand images of the end-to-end suite: nginx as
// Debian ships it, keeping the WebServer default image's contract (not
// root, port 8080), in two tags that serve different pages, and a third
// that runs as root, which the restricted pods must refuse.
func testImages(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{debsEnv: in.debs}); err != nil {
		return nil, err
	}
	d, err := unpack(in.debs, "nginx", "nginx-common", "libc6", "libcrypt1", "libpcre2-8-0", "libssl3", "zlib1g")
	if err != nil {
		return nil, err
	}
	defer d.close()
	nginx, err := d.withLibraries("/usr/sbin/nginx")
	if err != nil {
		return nil, err
	}
	mimeTypes, err := d.file("/etc/nginx/mime.types")
	if err != nil {
		return nil, err
	}
	user := account{name: "nginx", id: 101}
	base := append(append(nginx, mimeTypes, file{path: "/etc/nginx/nginx.conf", content: []byte(nginxConfig)}), user.files()...)
	version := debianVersion(in.debs, "nginx")
	image := func(tag, page, runAs string) spec {
		return spec{
			name: "seed-test/nginx:" + tag,
			files: append(base[:len(base):len(base)], file{
				path: "/usr/share/nginx/html/index.html", content: []byte(page),
			}),
			config: v1.Config{
				Cmd:  []string{"/usr/sbin/nginx", "-e", "stderr", "-g", "daemon off;"},
				User: runAs,
				// Graceful: nginx finishes the requests it has, as the
				// upstream images ask for.
				StopSignal: "SIGQUIT",
				Labels:     map[string]string{"org.opencontainers.image.version": version},
				ExposedPorts: map[string]struct{}{
					"8080/tcp": {},
				},
			},
		}
	}
	first := image("v1", "<h1>seed-operator test page, version 1</h1>\n", user.user())
	return map[string]spec{
		"nginx-v1":       first,
		"nginx-v2":       image("v2", "<h1>seed-operator test page, version 2</h1>\n", user.user()),
		"nginx-root":     image("root", "<h1>seed-operator test page, as root</h1>\n", "0:0"),
		"upstream-nginx": standIn(first, "nginxinc/nginx-unprivileged:1.29.3-alpine"),
	}, nil
}

// operatorImages are the operator's own: the manager, the project's
// scorecard tests and the bundle, laid out as Dockerfile,
// scorecard/Dockerfile and bundle.Dockerfile lay them out; and the
// scorecard's standard tests, which the bundle's scorecard config names.
func operatorImages(in inputs) (map[string]spec, error) {
	if err := required(map[string]string{
		"MANAGER": in.manager, "SEED_SCORECARD": in.scorecard, "BUNDLE_DIR": in.bundleDir,
		"IMAGE_TAG_BASE": in.imageBase, "VERSION": in.version,
		"SCORECARD_TEST": in.scorecardTest, "OPERATOR_SDK_VERSION": in.operatorSDKVersion,
	}); err != nil {
		return nil, err
	}
	repository := repositoryOf(in.imageBase)
	bundle, err := bundleImage(repository+"-bundle:v"+in.version, in.bundleDir)
	if err != nil {
		return nil, err
	}
	return map[string]spec{
		"operator":       program(repository+":v"+in.version, in.manager, "/manager"),
		"scorecard":      program(repository+"-scorecard:v"+in.version, in.scorecard, "/usr/local/bin/seed-scorecard"),
		"bundle":         bundle,
		"scorecard-test": scorecardTestImage(in),
	}, nil
}

// scorecardTestImage is operator-sdk's images/scorecard-test: the program
// on PATH, as the scorecard config's entrypoints name it.
func scorecardTestImage(in inputs) spec {
	s := program("operator-framework/scorecard-test:"+in.operatorSDKVersion, in.scorecardTest, "/usr/local/bin/scorecard-test")
	s.config.Env = []string{"PATH=/usr/local/bin:/bin"}
	return s
}

// bundleImage holds a bundle's manifests, metadata and scorecard tests at
// the image's root, labelled with the bundle's annotations, as
// bundle.Dockerfile does.
func bundleImage(name, dir string) (spec, error) {
	labels, err := bundleLabels(dir)
	if err != nil {
		return spec{}, err
	}
	var files []file
	for _, folder := range []string{"manifests", "metadata", "tests/scorecard"} {
		paths, err := filepath.Glob(filepath.Join(dir, folder, "*"))
		if err != nil {
			return spec{}, err
		}
		for _, p := range paths {
			files = append(files, file{path: "/" + folder + "/" + filepath.Base(p), source: p, mode: 0o644})
		}
	}
	return spec{name: name, files: files, config: v1.Config{Labels: labels}}, nil
}

// bundleLabels are the annotations of a bundle's metadata/annotations.yaml.
func bundleLabels(dir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata", "annotations.yaml"))
	if err != nil {
		return nil, err
	}
	var metadata struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &metadata); err != nil {
		return nil, err
	}
	return metadata.Annotations, nil
}

// repositoryOf is an image reference without its registry host:
// quay.io/seed-operators/seed-operator is seed-operators/seed-operator in
// the local registry, which the node's containerd serves quay.io from.
func repositoryOf(ref string) string {
	if host, rest, ok := strings.Cut(ref, "/"); ok && strings.ContainsAny(host, ".:") {
		return rest
	}
	return ref
}

// debianVersion is the upstream version of a downloaded package, from its
// file name (busybox-static_1%3a1.35.0-4+deb12u1+b1_amd64.deb is 1.35.0).
func debianVersion(debs, pkg string) string {
	matches, _ := filepath.Glob(filepath.Join(debs, pkg+"_*.deb"))
	if len(matches) != 1 {
		return "unknown"
	}
	version := strings.Split(filepath.Base(matches[0]), "_")[1]
	if _, after, ok := strings.Cut(version, "%3a"); ok {
		version = after
	}
	version, _, _ = strings.Cut(version, "-")
	return version
}

func required(values map[string]string) error {
	var missing []string
	for name, value := range values {
		if value == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s not set: run make images, which sets them", strings.Join(missing, ", "))
	}
	return nil
}
