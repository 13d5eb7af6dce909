package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The manifest directory is root's: whoever can write a manifest there runs any pod as root
// (a hostPath volume of /, a privileged container when allowed). So the agent checks, as
// sshd's StrictModes checks a user's authorized_keys: the directory, with its symlinks
// resolved once at start (the agent then uses the resolved path only), must be owned by root
// (or the user the agent runs as) and writable by no group and nobody else; so must every
// directory above it up to /, except that a parent may be world-writable when it is sticky
// (/tmp): there nobody renames away or replaces an entry of root's. Each manifest file must be
// a regular file owned by root and writable by no group and nobody else, or it is refused as a
// bad manifest (the others still apply).

// untrustedError: a path the agent refuses because a user other than root could have written
// it, or could replace what is under it.
type untrustedError struct {
	Path string
	UID  uint32
	Mode fs.FileMode
	// What is "manifest directory", "parent of the manifest directory" or "manifest".
	What string
}

func (e *untrustedError) Error() string {
	return fmt.Sprintf("%s %s is owned by uid %d with mode %s: anyone who can write it can run pods as root; fix: chown root:root %s && chmod go-w %s",
		e.What, e.Path, e.UID, e.Mode, e.Path, e.Path)
}

// trustedOwner reports whether uid is root or the agent's own user.
func trustedOwner(uid uint32) bool { return uid == 0 || int(uid) == os.Geteuid() }

// checkOwner returns an untrustedError unless st is owned by a trusted owner and not writable
// by group or others (a sticky directory may be when stickyOK).
func checkOwner(path, what string, st fs.FileInfo, stickyOK bool) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s %s: no owner to check", what, path)
	}
	writable := st.Mode().Perm()&0o022 != 0
	if stickyOK && st.Mode()&fs.ModeSticky != 0 {
		writable = false
	}
	if !trustedOwner(sys.Uid) || writable {
		return &untrustedError{Path: path, UID: sys.Uid, Mode: st.Mode(), What: what}
	}
	return nil
}

// trustedManifestDir returns dir absolute with its symlinks resolved, once it checked that it
// is a directory only root can write, nor replace (see above).
func trustedManifestDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("--manifests %s: %w", dir, err)
	}
	st, err := os.Lstat(abs)
	if err != nil {
		return "", fmt.Errorf("--manifests %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("--manifests %s: not a directory", abs)
	}
	if err := checkOwner(abs, "manifest directory", st, false); err != nil {
		return "", fmt.Errorf("--manifests: %w", err)
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		st, err := os.Lstat(p)
		if err != nil {
			return "", fmt.Errorf("--manifests %s: %w", abs, err)
		}
		if err := checkOwner(p, "parent of the manifest directory", st, true); err != nil {
			return "", fmt.Errorf("--manifests %s: %w", abs, err)
		}
		if p == filepath.Dir(p) {
			return abs, nil
		}
	}
}

// readManifest reads a manifest file of at most limit bytes, refusing a symlink (the directory
// listing said it was a regular file: it was replaced since) and a file root does not own
// alone (see above).
func readManifest(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if err := checkOwner(path, "manifest", st, false); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}
