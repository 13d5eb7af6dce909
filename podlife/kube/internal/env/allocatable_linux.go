package env

import "syscall"

// rootFSSize returns the size in bytes of the host's root filesystem.
func rootFSSize() (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/", &st); err != nil {
		return 0, false
	}
	return int64(st.Blocks) * st.Bsize, true
}
