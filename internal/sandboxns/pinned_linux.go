package sandboxns

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Pinned reports which namespaces under dir are pinned now: files dir/<kind> that exist
// (pinned says whether any does) and, of those, whether any is still a namespace's mount
// (mounted). A pin file without its mount is what a crash of the host leaves: the mount table
// does not survive a reboot, the directory does.
func Pinned(dir string) (pinned, mounted bool, err error) {
	for _, k := range allKinds() {
		path := filepath.Join(dir, string(k))
		var st unix.Statfs_t
		if err := unix.Statfs(path, &st); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return pinned, mounted, fmt.Errorf("sandboxns: statfs %s: %w", path, err)
		}
		pinned = true
		if st.Type == unix.NSFS_MAGIC {
			mounted = true
		}
	}
	return pinned, mounted, nil
}
