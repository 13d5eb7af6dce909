package podlife

import (
	"errors"

	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a fresh tmpfs (nosuid, nodev) on dir with the given
// mount data (e.g. "mode=0777,size=1024").
func mountTmpfs(dir, data string) error {
	return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, data)
}

// unmountLazy lazily unmounts (MNT_DETACH) whatever is mounted at path. A
// path that is not a mount point, or that is gone, is not an error.
func unmountLazy(path string) error {
	err := unix.Unmount(path, unix.MNT_DETACH)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}
