package sandboxns

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxStackedMounts bounds how many mounts unpin peels off one path, in case
// something mounted over a pin more than once.
const maxStackedMounts = 8

// Remove unpins every namespace kind under dir: it lazily unmounts
// (MNT_DETACH) and deletes dir/<kind> for each known kind. Files that are
// missing or no longer mounted are not an error, so Remove is idempotent.
// dir itself is left in place.
func Remove(dir string) error {
	var errs []error
	for _, k := range allKinds() {
		if err := unpin(filepath.Join(dir, string(k))); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// unpin unmounts everything mounted at path and then deletes the file.
func unpin(path string) error {
	for range maxStackedMounts {
		err := unix.Unmount(path, unix.MNT_DETACH)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
			break // not (or no longer) a mount point, or gone
		}
		if err != nil {
			return fmt.Errorf("sandboxns: unmount %s: %w", path, err)
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sandboxns: remove %s: %w", path, err)
	}
	return nil
}
