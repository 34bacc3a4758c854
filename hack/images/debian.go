package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// debian is a root file system unpacked from Debian packages that `make
// debs` downloaded (hack/debian.sh): the files of an image made from
// Debian's own binaries.
type debian struct {
	root string
}

// unpack extracts each package's .deb from dir into a new root.
func unpack(dir string, packages ...string) (*debian, error) {
	root, err := os.MkdirTemp("", "images-debian-")
	if err != nil {
		return nil, err
	}
	for _, pkg := range packages {
		debs, err := filepath.Glob(filepath.Join(dir, pkg+"_*.deb"))
		if err != nil {
			return nil, err
		}
		if len(debs) != 1 {
			return nil, fmt.Errorf("want one %s package in %s, found %d: run make debs", pkg, dir, len(debs))
		}
		if out, err := exec.Command("dpkg-deb", "-x", debs[0], root).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("unpacking %s: %w: %s", debs[0], err, out)
		}
	}
	return &debian{root: root}, nil
}

func (d *debian) close() { _ = os.RemoveAll(d.root) }

// file is the file at path in the root, read now, to be put at the same
// path in an image with its mode; a symlink is followed to the file it
// names.
func (d *debian) file(path string) (file, error) {
	real, err := d.resolve(path)
	if err != nil {
		return file{}, err
	}
	info, err := os.Stat(real)
	if err != nil {
		return file{}, err
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return file{}, err
	}
	return file{path: path, content: data, mode: int64(info.Mode().Perm())}, nil
}

// resolve follows the symlinks of path within the root, as if the root
// were /: an absolute target (/lib64/ld-linux-x86-64.so.2 names
// /lib/x86_64-linux-gnu/...) is taken from the root, not from this machine.
func (d *debian) resolve(path string) (string, error) {
	for range 40 {
		real := filepath.Join(d.root, path)
		info, err := os.Lstat(real)
		if err != nil {
			return "", err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			return real, nil
		}
		target, err := os.Readlink(real)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = filepath.Clean(target)
	}
	return "", fmt.Errorf("%s: too many symlinks", path)
}

// realPath is where the file at path is in the root, to run it.
func (d *debian) realPath(path string) string { return filepath.Join(d.root, path) }

var neededLibrary = regexp.MustCompile(`^\s*(\S+\.so[.\d]*) => (\S+)`)

// withLibraries is the program at path and the shared libraries it loads,
// taken from the root (not from this machine), and the dynamic loader.
func (d *debian) withLibraries(path string) ([]file, error) {
	program, err := d.file(path)
	if err != nil {
		return nil, err
	}
	files := []file{program}
	// The host's loader names the libraries; each is found in the root.
	out, err := exec.Command("ldd", d.realPath(path)).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", path, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		m := neededLibrary.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		library, err := d.library(m[1])
		if err != nil {
			return nil, fmt.Errorf("%s needs %s: %w", path, m[1], err)
		}
		files = append(files, library)
	}
	loader, err := d.file("/lib64/ld-linux-x86-64.so.2")
	if err != nil {
		return nil, err
	}
	return append(files, loader), nil
}

// library finds a shared library by its soname in the root's library
// folders.
func (d *debian) library(soname string) (file, error) {
	for _, dir := range []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"} {
		if f, err := d.file(dir + "/" + soname); err == nil {
			// The loader searches /lib/x86_64-linux-gnu and
			// /usr/lib/x86_64-linux-gnu alike.
			return f, nil
		}
	}
	return file{}, fmt.Errorf("no %s in the packages: add the package that ships it", soname)
}

const busybox = "busybox"

// busyboxFiles are Debian's static busybox and a link for each applet, as
// /bin/<applet>.
func busyboxFiles(debs string) ([]file, error) {
	d, err := unpack(debs, "busybox-static")
	if err != nil {
		return nil, err
	}
	defer d.close()
	bb, err := d.file("/bin/" + busybox)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(d.realPath(bb.path), "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("listing busybox's applets: %w", err)
	}
	files := []file{bb}
	for _, applet := range strings.Fields(string(out)) {
		if applet != busybox {
			files = append(files, file{path: "/bin/" + applet, link: busybox})
		}
	}
	return files, nil
}
