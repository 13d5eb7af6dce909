package eviction

import "golang.org/x/sys/unix"

// Space returns the bytes available to an unprivileged user (the kubelet's nodefs.available)
// and the capacity of the filesystem that holds dir.
func Space(dir string) (available, capacity uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	bs := uint64(st.Bsize) //nolint:gosec,unconvert // Bsize's type differs between architectures; never negative
	return st.Bavail * bs, st.Blocks * bs, nil
}
