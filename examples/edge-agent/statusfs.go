package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The status is written under the manifest directory, as root: a symlink there must not make
// the agent write or delete elsewhere. So every directory is opened relative to the previous
// one's descriptor with O_NOFOLLOW (a symlinked .status or .status/pods is refused, never
// followed), each file is created O_EXCL|O_NOFOLLOW in its directory and renamed over its name
// (rename replaces a symlink, it does not follow it), and only regular files are pruned.

// statusDir is a directory of the status, opened without following symlinks.
type statusDir struct {
	fd   int
	path string
}

// openStatusDir opens the manifest directory (resolved and checked at start) and, below it,
// each of names, creating them (mode 0755) as needed.
func openStatusDir(manifestDir string, names ...string) (statusDir, error) {
	fd, err := unix.Open(manifestDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return statusDir{}, fmt.Errorf("%s: %w", manifestDir, err)
	}
	d := statusDir{fd: fd, path: manifestDir}
	for _, name := range names {
		sub, err := d.sub(name)
		d.close()
		if err != nil {
			return statusDir{}, err
		}
		d = sub
	}
	return d, nil
}

// sub opens (creating it if needed) the directory name of d.
func (d statusDir) sub(name string) (statusDir, error) {
	path := filepath.Join(d.path, name)
	if err := unix.Mkdirat(d.fd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return statusDir{}, fmt.Errorf("%s: %w", path, err)
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return statusDir{}, fmt.Errorf("%s: %w (not a directory, a symlink? the agent writes its status only into a directory of its own: remove it)", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return statusDir{}, fmt.Errorf("%s: %w", path, err)
	}
	if !trustedOwner(st.Uid) || st.Mode&0o022 != 0 {
		unix.Close(fd)
		return statusDir{}, &untrustedError{Path: path, UID: st.Uid, Mode: os.FileMode(st.Mode & 0o7777), What: "status directory"}
	}
	return statusDir{fd: fd, path: path}, nil
}

func (d statusDir) close() { unix.Close(d.fd) }

// write replaces the file name of d with data: readers see the old content or the new one.
func (d statusDir) write(name string, data []byte, perm os.FileMode) error {
	tmp := "." + name + ".tmp"
	if err := unix.Unlinkat(d.fd, tmp, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, tmp), err)
	}
	fd, err := unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, tmp), err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.path, tmp))
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(d.fd, tmp, d.fd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return fmt.Errorf("%s: %w", filepath.Join(d.path, name), err)
	}
	return unix.Fsync(d.fd)
}

// prune removes the regular files of d that keep does not want, and returns their names.
// Anything else (a symlink, a directory) is left alone.
func (d statusDir) prune(keep func(name string) bool) (removed []string, err error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.path, err)
	}
	f := os.NewFile(uintptr(fd), d.path)
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.path, err)
	}
	for _, e := range entries {
		if keep(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		if err := unix.Unlinkat(d.fd, e.Name(), 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return removed, fmt.Errorf("%s: %w", filepath.Join(d.path, e.Name()), err)
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

// remove removes the file name of d, if it is there.
func (d statusDir) remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, name), err)
	}
	return nil
}
