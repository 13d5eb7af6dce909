package hostmount

import (
	"errors"
	"fmt"
	"sort"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
)

// MountTmpfs mounts a fresh tmpfs (nosuid, nodev) on dir with the given
// mount data (e.g. "mode=0777,size=1024").
func MountTmpfs(dir, data string) error {
	return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, data)
}

// UnmountLazy lazily unmounts (MNT_DETACH) whatever is mounted at path. A
// path that is not a mount point, or that is gone, is not an error.
func UnmountLazy(path string) error {
	err := unix.Unmount(path, unix.MNT_DETACH)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// UnmountUnder lazily unmounts every mount point at or under dir (tmpfs volumes, private volume
// mount points, pinned namespaces), deepest first. dir must be absolute with its symlinks
// resolved (podlife.Runtime.realDir does it): it is compared with the mount points of /proc/self/mountinfo,
// which moby/sys/mountinfo reads with the kernel's escapes (\040 for a space...) undone.
func UnmountUnder(dir string) error {
	mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	if err != nil {
		return fmt.Errorf("list mounts under %s: %w", dir, err)
	}
	points := make([]string, 0, len(mounts))
	for _, m := range mounts {
		points = append(points, m.Mountpoint)
	}
	// A path sorts after its parent: reversed, children come first. A point mounted over more
	// than once is listed once per mount, each unmount taking off the top one.
	sort.Sort(sort.Reverse(sort.StringSlice(points)))
	var errs []error
	for _, p := range points {
		if err := UnmountLazy(p); err != nil {
			errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}
