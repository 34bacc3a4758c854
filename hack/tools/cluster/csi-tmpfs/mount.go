package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The mounts the driver makes, by system call: its image has no mount
// program.

// mountTmpfs mounts a tmpfs of size bytes at dir, writable by every user
// as an emptyDir is, so that pods that run as any user can write to it.
func mountTmpfs(dir string, size int64) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=0777", size)); err != nil {
		return fmt.Errorf("mounting a tmpfs of %d bytes at %s: %w", size, dir, err)
	}
	return nil
}

// resizeTmpfs changes the size of the tmpfs at dir while it is in use:
// every bind mount of it, a pod's included, sees the new size at once.
func resizeTmpfs(dir string, size int64) error {
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT|unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d", size)); err != nil {
		return fmt.Errorf("resizing the tmpfs at %s to %d bytes: %w", dir, size, err)
	}
	return nil
}

// bindMount makes source visible at target, read-only if asked.
func bindMount(source, target string, readOnly bool) error {
	if err := os.MkdirAll(target, 0o750); err != nil {
		return err
	}
	if err := unix.Mount(source, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting %s at %s: %w", source, target, err)
	}
	if !readOnly {
		return nil
	}
	// A bind mount takes MS_RDONLY only when it is remounted.
	if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		return errors.Join(fmt.Errorf("making %s read-only: %w", target, err), unmount(target))
	}
	return nil
}

// unmount detaches what is mounted at dir, if anything, and removes dir.
func unmount(dir string) error {
	mounted, err := isMountPoint(dir)
	if err != nil {
		return err
	}
	if mounted {
		if err := unix.Unmount(dir, 0); err != nil {
			return fmt.Errorf("unmounting %s: %w", dir, err)
		}
	}
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// isMountPoint tells whether something is mounted at dir, from the mount
// table: a bind mount of a file system onto itself shares its device, so
// comparing devices would not tell.
func isMountPoint(dir string) (bool, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		// The fifth field is the mount point, with octal escapes.
		fields := strings.Fields(scanner.Text())
		if len(fields) > 4 && unescape(fields[4]) == dir {
			return true, nil
		}
	}
	return false, scanner.Err()
}

// unescape decodes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
