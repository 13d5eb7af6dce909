package cni

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// checkNetNS returns nil if path names a live namespace file (a pinned
// namespace or a /proc/<pid>/ns entry), and an error saying why not
// otherwise: an empty path, a missing file, or a plain file whose pin was
// unmounted.
func checkNetNS(path string) error {
	if path == "" {
		return fmt.Errorf("no network namespace path")
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("%q is not a network namespace: %w", path, err)
	}
	if st.Type != unix.NSFS_MAGIC {
		return fmt.Errorf("%q is not a network namespace", path)
	}
	return nil
}
