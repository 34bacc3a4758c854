package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

const root = "../.."

// dockerfile reads the LABEL, USER and ENTRYPOINT instructions of a
// Dockerfile's last stage, the image it makes.
func dockerfile(t *testing.T, path string) (labels map[string]string, user string, entrypoint []string) {
	labels, user, entrypoint, _ = dockerfileWithCmd(t, path)
	return labels, user, entrypoint
}

// dockerfileWithCmd reads the CMD instruction of a Dockerfile's last stage
// too.
func dockerfileWithCmd(t *testing.T, path string) (labels map[string]string, user string, entrypoint, cmd []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	labels = map[string]string{}
	label := regexp.MustCompile(`^LABEL (\S+)=(\S+)$`)
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "FROM "):
			labels, user, entrypoint, cmd = map[string]string{}, "", nil, nil
		case label.MatchString(line):
			m := label.FindStringSubmatch(line)
			labels[m[1]] = m[2]
		case strings.HasPrefix(line, "USER "):
			user = strings.TrimPrefix(line, "USER ")
		case strings.HasPrefix(line, "ENTRYPOINT "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "ENTRYPOINT ")), &entrypoint); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(line, "CMD "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "CMD ")), &cmd); err != nil {
				t.Fatal(err)
			}
		}
	}
	return labels, user, entrypoint, cmd
}

// The bundle image carries the bundle's annotations as labels, the same
// that bundle.Dockerfile declares, and its files where the labels say.
func TestBundleImageIsWhatBundleDockerfileBuilds(t *testing.T) {
	g := NewWithT(t)
	s, err := bundleImage("seed-operators/seed-operator-bundle:v0", filepath.Join(root, "bundle"))
	g.Expect(err).NotTo(HaveOccurred())
	annotations, err := bundleLabels(filepath.Join(root, "bundle"))
	g.Expect(err).NotTo(HaveOccurred())
	labels, _, _ := dockerfile(t, "bundle.Dockerfile")

	g.Expect(s.config.Labels).To(Equal(annotations))
	g.Expect(labels).To(Equal(annotations), "bundle.Dockerfile's labels are the bundle's annotations")
	paths := make([]string, 0, len(s.files))
	for _, f := range s.files {
		paths = append(paths, f.path)
	}
	g.Expect(paths).To(ContainElements("/manifests/seed-operator.clusterserviceversion.yaml",
		"/metadata/annotations.yaml", "/tests/scorecard/config.yaml"))
	g.Expect(annotations).To(HaveKeyWithValue("operators.operatorframework.io.bundle.manifests.v1", "manifests/"))
}

// The manager's and the scorecard tests' images run their program as the
// Dockerfiles do.
func TestProgramImagesAreWhatTheirDockerfilesBuild(t *testing.T) {
	tests := []struct {
		dockerfile string
		at         string
	}{
		{dockerfile: "Dockerfile", at: "/manager"},
		{dockerfile: "scorecard/Dockerfile", at: "/usr/local/bin/seed-scorecard"},
	}
	for _, tt := range tests {
		t.Run(tt.dockerfile, func(t *testing.T) {
			g := NewWithT(t)
			_, user, entrypoint := dockerfile(t, tt.dockerfile)
			s := program("x:v0", "/bin/true", tt.at)
			g.Expect(s.config.Entrypoint).To(Equal(entrypoint))
			g.Expect(s.config.User).To(Equal(user))
		})
	}
}

// The catalog image runs opm on the catalog and its cache as
// catalog.Dockerfile's does, and the cache belongs to the user opm runs
// as, who must lock it.
func TestCatalogImageIsWhatCatalogDockerfileBuilds(t *testing.T) {
	g := NewWithT(t)
	cache := t.TempDir()
	g.Expect(os.MkdirAll(filepath.Join(cache, "db"), 0o755)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(cache, "db", "index"), []byte("x"), 0o644)).To(Succeed())
	s, err := catalogImage("x:v0", filepath.Join(root, "catalog"), cache, inputs{opm: "/bin/true", grpcHealthProbe: "/bin/true"})
	g.Expect(err).NotTo(HaveOccurred())
	labels, _, entrypoint, cmd := dockerfileWithCmd(t, "catalog.Dockerfile")

	g.Expect(s.config.Labels).To(Equal(labels))
	g.Expect(s.config.Entrypoint).To(Equal(entrypoint))
	g.Expect(s.config.Cmd).To(Equal(cmd))
	owners := map[string]int{}
	for _, f := range s.files {
		owners[f.path] = f.uid
	}
	g.Expect(owners).To(HaveKeyWithValue("/configs/seed-operator/catalog.yaml", 0))
	g.Expect(owners).To(HaveKeyWithValue("/bin/grpc_health_probe", 0))
	g.Expect(owners).To(HaveKeyWithValue("/tmp/cache", olmUser.id))
	g.Expect(owners).To(HaveKeyWithValue("/tmp/cache/db/index", olmUser.id))
	_, err = build(s)
	g.Expect(err).NotTo(HaveOccurred())
}

// A layer holds its files' parent directories, in order, owned as asked;
// and the same files make the same image.
func TestBuild(t *testing.T) {
	g := NewWithT(t)
	s := spec{name: "x:v0", files: []file{
		{path: "/usr/local/bin/tool", content: []byte("#!/bin/sh\n"), mode: 0o755},
		{path: "/bin/sh", link: "busybox"},
		{path: "/home/app", uid: 1000},
	}}
	data, err := layerTar(s.files)
	g.Expect(err).NotTo(HaveOccurred())
	var names []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		g.Expect(err).NotTo(HaveOccurred())
		names = append(names, h.Name)
		switch h.Name {
		case "usr/local/bin/tool":
			g.Expect(h.Mode).To(BeEquivalentTo(0o755))
		case "bin/sh":
			g.Expect(h.Typeflag).To(BeEquivalentTo(tar.TypeSymlink))
			g.Expect(h.Linkname).To(Equal("busybox"))
		case "home/app/":
			g.Expect(h.Uid).To(Equal(1000))
		}
	}
	g.Expect(names).To(Equal([]string{"bin/", "bin/sh", "home/", "home/app/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/tool"}))

	first, err := build(s)
	g.Expect(err).NotTo(HaveOccurred())
	second, err := build(s)
	g.Expect(err).NotTo(HaveOccurred())
	d1, _ := first.Digest()
	d2, _ := second.Digest()
	g.Expect(d1).To(Equal(d2), "reproducible")
}

func TestDebianVersion(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	for _, name := range []string{"busybox-static_1%3a1.35.0-4+deb12u1+b1_amd64.deb", "nginx_1.22.1-9+deb12u11_amd64.deb"} {
		g.Expect(os.WriteFile(filepath.Join(dir, name), nil, 0o644)).To(Succeed())
	}
	g.Expect(debianVersion(dir, "busybox-static")).To(Equal("1.35.0"))
	g.Expect(debianVersion(dir, "nginx")).To(Equal("1.22.1"))
	g.Expect(debianVersion(dir, "missing")).To(Equal("unknown"))
}

func TestRepositoryOf(t *testing.T) {
	g := NewWithT(t)
	g.Expect(repositoryOf("quay.io/seed-operators/seed-operator")).To(Equal("seed-operators/seed-operator"))
	g.Expect(repositoryOf("localhost:5000/seed-operator")).To(Equal("seed-operator"))
	g.Expect(repositoryOf("seed-operators/seed-operator")).To(Equal("seed-operators/seed-operator"))
}
