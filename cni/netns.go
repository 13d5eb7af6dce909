package cni

import "golang.org/x/sys/unix"

// isNetNS reports whether path names a live namespace file (a pinned
// namespace or a /proc/<pid>/ns entry). An empty path, a missing file, or a
// plain file whose pin was unmounted all report false.
func isNetNS(path string) bool {
	if path == "" {
		return false
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false
	}
	return st.Type == unix.NSFS_MAGIC
}
