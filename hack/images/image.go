package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// file is one entry of an image's file system.
type file struct {
	// path in the image, absolute.
	path string
	mode int64
	uid  int
	// One of: the file on this machine to copy, the content, a symlink's
	// target; or none, for a directory.
	source  string
	content []byte
	link    string
}

// spec describes an image: its files, in one layer, and how it runs.
type spec struct {
	// repository and tag in the registry, e.g. seed-infra/pause:3.10.
	name   string
	files  []file
	config v1.Config
}

// epoch is every file's and the image's time, so that the same inputs make
// the same image, with the same digest.
var epoch = time.Unix(0, 0).UTC()

// build makes the image a spec describes: one layer on an empty base, for
// linux/amd64, with OCI media types.
func build(s spec) (v1.Image, error) {
	data, err := layerTar(s.files)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", s.name, err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{CreatedBy: "hack/images", Created: v1.Time{Time: epoch}}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", "amd64"
	cf.Created = v1.Time{Time: epoch}
	cf.Config = s.config
	return mutate.ConfigFile(img, cf)
}

// layerTar writes the files as a tar stream, with the directories they
// need, sorted, and owned by root unless a file says otherwise.
func layerTar(files []file) ([]byte, error) {
	all := map[string]file{}
	for _, f := range files {
		if !path.IsAbs(f.path) {
			return nil, fmt.Errorf("%s: not an absolute path", f.path)
		}
		all[f.path] = f
		for dir := path.Dir(f.path); dir != "/"; dir = path.Dir(dir) {
			if _, ok := all[dir]; !ok {
				all[dir] = file{path: dir, mode: 0o755}
			}
		}
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	slices.Sort(paths)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		f := all[p]
		h := &tar.Header{Name: strings.TrimPrefix(p, "/"), Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: epoch, Format: tar.FormatPAX}
		content := f.content
		switch {
		case f.link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, f.link
			if h.Mode == 0 {
				h.Mode = 0o777
			}
		case f.source != "":
			data, err := os.ReadFile(f.source)
			if err != nil {
				return nil, err
			}
			content = data
			if h.Mode == 0 {
				info, err := os.Stat(f.source)
				if err != nil {
					return nil, err
				}
				h.Mode = int64(info.Mode().Perm())
			}
		case f.content == nil:
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		}
		if h.Typeflag == 0 {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(content))
			if h.Mode == 0 {
				h.Mode = 0o644
			}
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(content); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// account is a user of an image, with the /etc/passwd and /etc/group that
// name it; runAsNonRoot needs the user as a number.
type account struct {
	name string
	id   int
}

func (a account) files() []file {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:/home/%s:/sbin/nologin\n", a.name, a.id, a.id, a.name, a.name)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", a.name, a.id)
	return []file{
		{path: "/etc/passwd", content: []byte(passwd)},
		{path: "/etc/group", content: []byte(group)},
		{path: "/tmp", mode: 0o1777},
		{path: "/home/" + a.name, mode: 0o755, uid: a.id},
	}
}

func (a account) user() string { return fmt.Sprintf("%d:%d", a.id, a.id) }

// nonroot is the user of the images of static programs, as distroless's
// nonroot images have it.
var nonroot = account{name: "nonroot", id: 65532}

// program is an image of one static program, run as nonroot, as the
// project's Dockerfiles lay them out on distroless/static.
func program(name, binary, at string) spec {
	return spec{
		name:   name,
		files:  append(nonroot.files(), file{path: at, source: binary, mode: 0o755}),
		config: v1.Config{Entrypoint: []string{at}, User: nonroot.user(), WorkingDir: "/"},
	}
}
