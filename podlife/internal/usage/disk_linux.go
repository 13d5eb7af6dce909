package usage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Disk is the space the files under root take (st_blocks, hard links counted once),
// staying on root's filesystem; 0 if root does not exist. A file removed during the walk is
// skipped. ctx ending stops the walk.
func Disk(ctx context.Context, root string) (uint64, error) {
	st, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	dev := st.Sys().(*syscall.Stat_t).Dev
	type inode struct{ dev, ino uint64 }
	seen := map[inode]bool{}
	var total uint64
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		s := info.Sys().(*syscall.Stat_t)
		if uint64(s.Dev) != uint64(dev) { //nolint:unconvert // Dev's type differs between architectures
			if d.IsDir() {
				return filepath.SkipDir // a mount: another filesystem (a tmpfs volume, an image)
			}
			return nil
		}
		if s.Nlink > 1 {
			k := inode{uint64(s.Dev), uint64(s.Ino)} //nolint:unconvert // as above
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		total += uint64(s.Blocks) * 512
		return nil
	})
	return total, err
}
