package hostcheck

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/podlife/podlife/podlife/internal/api"
)

// SecureDir makes sure dir, which exists, is a directory only its owner can enter, and that the
// owner is this process's user or root: the state dir and the control socket's directory hold
// what lets a process act on pods as root (pod records, the control socket, logs).
//
// A directory of ours with a looser mode (one made before podlife ran, by hand or by a
// package, 0755 say) is fixed with chmod 0700, with a warning in the log: refusing it would
// only make its owner do the same chmod by hand. A directory another user owns is refused, whatever its mode:
// that user could replace what is in it.
func SecureDir(dir string, log *slog.Logger) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner to check: %w", dir, api.ErrNotSupported)
	}
	uid := os.Geteuid()
	if int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("%s is owned by uid %d, not by uid %d or root: refusing to keep state there", dir, st.Uid, uid)
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if int(st.Uid) != uid {
		return fmt.Errorf("%s has mode %#o and is not ours to fix (owner uid %d): it must be 0700", dir, perm, st.Uid)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("%s has mode %#o: set it to 0700: %w", dir, perm, err)
	}
	log.Warn("state directory was open to other users: its mode was set to 0700", "dir", dir, "was", fmt.Sprintf("%#o", perm))
	return nil
}

// ResolveDir returns dir absolute with its symlinks resolved: the path the kernel shows (in
// /proc/self/mountinfo) for a mount made under dir.
func ResolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// RealPath returns path, a path under the state dir dir as the configuration spells it, under
// real, the state dir as ResolveDir resolved it: compare that one with mount points. A path
// outside dir, or an empty real, gives path unchanged.
func RealPath(dir, real, path string) string {
	if real == "" {
		return path
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return path
	}
	return filepath.Join(real, rel)
}
