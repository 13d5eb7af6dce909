package poddir

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// RenameNoReplace renames from to to, failing (an error wrapping os.ErrExist's EEXIST) if to
// exists, even as an empty directory (which rename(2) would replace).
func RenameNoReplace(from, to string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE); err != nil {
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	return nil
}
