package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// store keeps the driver's volumes and snapshots on the node: a volume is
// a tmpfs of its size mounted in a folder of its own, so that its size is
// a real limit, it grows while in use and its usage is the file system's;
// a snapshot is a tar archive of a volume's files, on disk. Each has a
// record beside it, written last, so that an operation cut short is found
// undone and done again.
type store struct {
	volumes, snapshots string
}

// volume is a volume's record.
type volume struct {
	// FromSnapshot is the snapshot the volume was restored from, if any.
	FromSnapshot string `json:"fromSnapshot,omitempty"`
}

// snapshot is a snapshot's record.
type snapshot struct {
	ID           string    `json:"-"`
	SourceVolume string    `json:"sourceVolume"`
	Created      time.Time `json:"created"`
	// Size is the source volume's size when the snapshot was taken: the
	// least a volume restored from it needs.
	Size int64 `json:"size"`
}

// usage is a file system's bytes and inodes.
type usage struct {
	bytes, bytesFree, inodes, inodesFree int64
}

var (
	errNotFound = errors.New("not found")
	errConflict = errors.New("exists with other parameters")
)

func (s store) volumeDir(id string) string      { return filepath.Join(s.volumes, id) }
func (s store) volumeRecord(id string) string   { return filepath.Join(s.volumes, id+".json") }
func (s store) snapshotRecord(id string) string { return filepath.Join(s.snapshots, id+".json") }
func (s store) archive(id string) string        { return filepath.Join(s.snapshots, id+".tar") }

// createVolume makes volume id of size bytes, with the files of snapshot
// fromSnapshot if it is set, and returns its size. Made already, it is
// returned as it is, unless it was restored from another snapshot.
func (s store) createVolume(id string, size int64, fromSnapshot string) (int64, error) {
	var existing volume
	switch err := readRecord(s.volumeRecord(id), &existing); {
	case err == nil:
		if existing.FromSnapshot != fromSnapshot {
			return 0, fmt.Errorf("volume %s: %w", id, errConflict)
		}
		return s.size(id)
	case !errors.Is(err, errNotFound):
		return 0, err
	}
	dir := s.volumeDir(id)
	// A create cut short left a mount without a record: start again.
	if err := unmount(dir); err != nil {
		return 0, err
	}
	if fromSnapshot != "" {
		if _, err := s.snapshot(fromSnapshot); err != nil {
			return 0, err
		}
	}
	if err := mountTmpfs(dir, size); err != nil {
		return 0, err
	}
	if fromSnapshot != "" {
		if err := extract(s.archive(fromSnapshot), dir); err != nil {
			return 0, errors.Join(fmt.Errorf("restoring snapshot %s into volume %s: %w", fromSnapshot, id, err), unmount(dir))
		}
	}
	if err := writeRecord(s.volumeRecord(id), volume{FromSnapshot: fromSnapshot}); err != nil {
		return 0, errors.Join(err, unmount(dir))
	}
	return s.size(id)
}

// deleteVolume removes volume id's files, its mount and its record; a
// volume that is not there is deleted already.
func (s store) deleteVolume(id string) error {
	if err := os.Remove(s.volumeRecord(id)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return unmount(s.volumeDir(id))
}

// expandVolume grows volume id to size bytes, in use or not; it never
// shrinks one.
func (s store) expandVolume(id string, size int64) (int64, error) {
	current, err := s.size(id)
	if err != nil {
		return 0, err
	}
	if size <= current {
		return current, nil
	}
	if err := resizeTmpfs(s.volumeDir(id), size); err != nil {
		return 0, err
	}
	return s.size(id)
}

// size is volume id's size in bytes.
func (s store) size(id string) (int64, error) {
	if err := readRecord(s.volumeRecord(id), &volume{}); err != nil {
		return 0, fmt.Errorf("volume %s: %w", id, err)
	}
	u, err := usageOf(s.volumeDir(id))
	if err != nil {
		return 0, err
	}
	return u.bytes, nil
}

// usageOf is the usage of the file system at path.
func usageOf(path string) (usage, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return usage{}, fmt.Errorf("%s: %w", path, errNotFound)
		}
		return usage{}, err
	}
	return usage{
		bytes: int64(st.Blocks) * st.Bsize, bytesFree: int64(st.Bavail) * st.Bsize,
		inodes: int64(st.Files), inodesFree: int64(st.Ffree),
	}, nil
}

// createSnapshot archives volume's files as snapshot id. Taken already, it
// is returned as it is, unless it was taken of another volume.
func (s store) createSnapshot(id, volumeID string) (snapshot, error) {
	existing, err := s.snapshot(id)
	switch {
	case err == nil:
		if existing.SourceVolume != volumeID {
			return snapshot{}, fmt.Errorf("snapshot %s: %w", id, errConflict)
		}
		return existing, nil
	case !errors.Is(err, errNotFound):
		return snapshot{}, err
	}
	size, err := s.size(volumeID)
	if err != nil {
		return snapshot{}, err
	}
	if err := os.MkdirAll(s.snapshots, 0o700); err != nil {
		return snapshot{}, err
	}
	if err := archive(s.volumeDir(volumeID), s.archive(id)); err != nil {
		return snapshot{}, fmt.Errorf("archiving volume %s: %w", volumeID, err)
	}
	taken := snapshot{ID: id, SourceVolume: volumeID, Created: time.Now().UTC().Truncate(time.Second), Size: size}
	if err := writeRecord(s.snapshotRecord(id), taken); err != nil {
		return snapshot{}, errors.Join(err, os.Remove(s.archive(id)))
	}
	return taken, nil
}

// snapshot reads snapshot id's record.
func (s store) snapshot(id string) (snapshot, error) {
	var taken snapshot
	if err := readRecord(s.snapshotRecord(id), &taken); err != nil {
		return snapshot{}, fmt.Errorf("snapshot %s: %w", id, err)
	}
	taken.ID = id
	return taken, nil
}

// deleteSnapshot removes snapshot id, its record first; a snapshot that is
// not there is deleted already.
func (s store) deleteSnapshot(id string) error {
	for _, path := range []string{s.snapshotRecord(id), s.archive(id)} {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

func readRecord(path string, into any) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// writeRecord writes a record whole or not at all.
func writeRecord(path string, record any) error {
	b, err := json.Marshal(record)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// archive writes the files under dir, with their owners and modes, to a
// tar archive at path, whole or not at all.
func archive(dir, path string) (err error) {
	f, err := os.OpenFile(path+".tmp", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.Remove(path+".tmp"))
		}
	}()
	w := tar.NewWriter(f)
	walkErr := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		return addToArchive(w, dir, p, d)
	})
	if err := errors.Join(walkErr, w.Close(), f.Sync(), f.Close()); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

func addToArchive(w *tar.Writer, dir, path string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	var link string
	if info.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(path); err != nil {
			return err
		}
	}
	header, err := tar.FileInfoHeader(info, link)
	if err != nil {
		// Sockets and devices have no place in a snapshot.
		return nil
	}
	if header.Name, err = filepath.Rel(dir, path); err != nil {
		return err
	}
	if info.IsDir() {
		header.Name += "/"
	}
	if err := w.WriteHeader(header); err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	_, err = io.Copy(w, f)
	return err
}

// extract writes the archive at path into dir, with the files' owners and
// modes; no name in it reaches outside dir, through ".." or a link.
func extract(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }()
	r := tar.NewReader(f)
	for {
		header, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := extractOne(root, r, header); err != nil {
			return fmt.Errorf("%s: %w", header.Name, err)
		}
	}
}

func extractOne(root *os.Root, r io.Reader, header *tar.Header) error {
	name, mode := header.Name, header.FileInfo().Mode()
	switch header.Typeflag {
	case tar.TypeDir:
		if err := root.Mkdir(name, mode.Perm()); err != nil {
			return err
		}
	case tar.TypeReg:
		f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode.Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			return errors.Join(err, f.Close())
		}
		if err := f.Close(); err != nil {
			return err
		}
	case tar.TypeSymlink:
		if err := root.Symlink(header.Linkname, name); err != nil {
			return err
		}
		return root.Lchown(name, header.Uid, header.Gid)
	default:
		return nil
	}
	// Mkdir and OpenFile apply the umask, and chown clears set-user-ID:
	// the archive's mode is set last.
	return errors.Join(root.Lchown(name, header.Uid, header.Gid),
		root.Chmod(name, mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)))
}
