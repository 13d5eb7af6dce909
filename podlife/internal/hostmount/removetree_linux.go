package hostmount

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// ErrMountInTheWay is the error of a delete under the state dir (RemoveTree) that met another
// mount: going on would delete what the mount shows, a host directory of a hostPath say.
var ErrMountInTheWay = errors.New("a mount point is in the way: refusing to delete through it")

// mountPos is where a file is: its device (st_dev) and its mount (the mount ID of
// /proc/self/mountinfo). A bind mount of a directory of the same filesystem has the same device
// but another mount.
type mountPos struct{ dev, mnt uint64 }

// RemoveTree deletes path and everything below it, as os.RemoveAll does, except that it never
// leaves the mount path's parent directory is on: the walk opens each directory relative to its
// parent with O_NOFOLLOW (a symlink is deleted, never followed), checks the opened directory's
// device and mount ID against the parent's, and refuses a directory on another device or mount,
// with an error naming it (ErrMountInTheWay), rather than descend. The rest is deleted; what holds
// the refused mount point stays. A path that does not exist is not an error.
//
// Every recursive delete of podlife under the state dir goes through RemoveTree; mounts podlife
// made there are unmounted first (see UnmountUnder), so a refusal means a mount it could not
// unmount, or one it did not make.
func RemoveTree(path string) error {
	path = filepath.Clean(path)
	parent, err := unix.Open(filepath.Dir(path), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: filepath.Dir(path), Err: err}
	}
	defer unix.Close(parent)
	root, err := mountOf(parent)
	if err != nil {
		return &fs.PathError{Op: "statx", Path: filepath.Dir(path), Err: err}
	}
	return removeAt(parent, filepath.Base(path), path, root)
}

// removeAt deletes name in the directory dirfd (path is its full name, for errors), and what
// is below it if it is a directory on root's mount.
func removeAt(dirfd int, name, path string, root mountPos) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return ignoreNotExist(&fs.PathError{Op: "lstat", Path: path, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if st.Dev != root.dev { // a file mounted over this one
			return fmt.Errorf("%s: %w", path, ErrMountInTheWay)
		}
		// A file bind-mounted from the same filesystem cannot be unlinked (EBUSY).
		return ignoreNotExist(unlinkat(dirfd, name, path, 0))
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return ignoreNotExist(&fs.PathError{Op: "open", Path: path, Err: err})
	}
	dir := os.NewFile(uintptr(fd), path) // closes fd
	pos, err := mountOf(fd)
	if err != nil {
		dir.Close()
		return &fs.PathError{Op: "statx", Path: path, Err: err}
	}
	if pos != root {
		dir.Close()
		return fmt.Errorf("%s: %w", path, ErrMountInTheWay)
	}
	names, err := dir.Readdirnames(-1)
	var first error
	if err != nil {
		// ENOENT: the directory was deleted since it was opened (by another delete of the
		// same tree); what is left of it is that delete's.
		first = ignoreNotExist(&fs.PathError{Op: "readdir", Path: path, Err: err})
	}
	for _, n := range names {
		if err := removeAt(fd, n, filepath.Join(path, n), root); err != nil && first == nil {
			first = err
		}
	}
	dir.Close()
	if first != nil {
		return first
	}
	return ignoreNotExist(unlinkat(dirfd, name, path, unix.AT_REMOVEDIR))
}

// mountOf returns the device and the mount of an open file: the mount ID from statx
// (STATX_MNT_ID, Linux 5.8), else from /proc/self/fdinfo.
func mountOf(fd int) (mountPos, error) {
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_MNT_ID, &stx); err == nil {
		pos := mountPos{dev: unix.Mkdev(stx.Dev_major, stx.Dev_minor), mnt: stx.Mnt_id}
		if stx.Mask&unix.STATX_MNT_ID != 0 {
			return pos, nil
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return mountPos{}, err
	}
	mnt, err := fdinfoMountID(fd)
	if err != nil {
		return mountPos{}, err
	}
	return mountPos{dev: st.Dev, mnt: mnt}, nil
}

// fdinfoMountID reads the mnt_id line of /proc/self/fdinfo/<fd> (Linux 3.15).
func fdinfoMountID(fd int) (uint64, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("mnt_id:")); ok {
			return strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
		}
	}
	return 0, fmt.Errorf("no mnt_id in /proc/self/fdinfo/%d", fd)
}

func unlinkat(dirfd int, name, path string, flags int) error {
	if err := unix.Unlinkat(dirfd, name, flags); err != nil {
		return &fs.PathError{Op: "unlinkat", Path: path, Err: err}
	}
	return nil
}

func ignoreNotExist(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
