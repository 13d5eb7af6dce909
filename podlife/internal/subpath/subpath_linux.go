package subpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	pathrs "github.com/cyphar/filepath-securejoin/pathrs-lite"
	"golang.org/x/sys/unix"
)

// Open opens sub inside root as the kubelet allows it: symlinks are resolved as the host
// resolves them and must stay in the volume, and a missing sub is created inside the volume, its
// directories with the mode of the volume's root (see makeDirs). The handle comes from a walk that never leaves root (filepath-securejoin)
// of the path the host's resolution found, and must land where that resolution did: a path
// component swapped for a link while this runs gives an error, never a handle out of the volume.
func Open(root *os.File, sub string) (*os.File, error) {
	rootPath, err := os.Readlink(FDPath(root))
	if err != nil {
		return nil, err
	}
	rel, missing, err := resolveExisting(rootPath, sub)
	if err != nil {
		return nil, err
	}
	var h *os.File
	if missing == "" {
		h, err = pathrs.OpenatInRoot(root, rel)
	} else {
		h, err = makeDirs(root, rel, missing)
	}
	if err != nil {
		return nil, err
	}
	got, err := os.Readlink(FDPath(h))
	if err != nil {
		h.Close()
		return nil, err
	}
	if want, err := filepath.EvalSymlinks(filepath.Join(rootPath, sub)); err != nil || want != got || !within(got, rootPath) {
		h.Close()
		return nil, fmt.Errorf("%w: it changed while being opened", ErrEscapes)
	}
	return h, nil
}

// resolveExisting resolves the longest existing prefix of sub inside root as the host does
// (symlinks followed), refusing it if it leads out of root or through a dangling link. It
// returns that prefix resolved, relative to root, and the components of sub that do not exist.
func resolveExisting(root, sub string) (rel, missing string, err error) {
	for p := filepath.Clean(sub); ; p = filepath.Dir(p) {
		path := filepath.Join(root, p)
		resolved, err := filepath.EvalSymlinks(path)
		if errors.Is(err, fs.ErrNotExist) && p != "." {
			if _, lerr := os.Lstat(path); lerr == nil {
				return "", "", fmt.Errorf("%w: %s is a link to nothing", ErrEscapes, p)
			}
			continue
		}
		if err != nil {
			return "", "", err
		}
		if !within(resolved, root) {
			return "", "", fmt.Errorf("%w: %s resolves to %s on the host", ErrEscapes, p, resolved)
		}
		rel, err = filepath.Rel(root, resolved)
		if err != nil {
			return "", "", err
		}
		if p != filepath.Clean(sub) {
			missing, err = filepath.Rel(p, filepath.Clean(sub))
		}
		return rel, missing, err
	}
}

// makeDirs creates the missing directories below rel (relative to root, existing) as the kubelet
// does: with the mode of the volume's root, exactly (umask ignored, setgid kept), so that a
// volume writable by the container's user (fsGroup included) keeps its subPaths writable. It
// returns a handle on the last one.
func makeDirs(root *os.File, rel, missing string) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(root.Fd()), &st); err != nil {
		return nil, err
	}
	mode := st.Mode & 0o7777
	h, err := pathrs.MkdirAllHandle(root, filepath.Join(rel, missing), fs.FileMode(mode&0o777))
	if err != nil {
		return nil, err
	}
	// From the deepest up, each through a handle opened inside the root.
	for p := missing; p != "."; p = filepath.Dir(p) {
		d := h
		if p != missing {
			if d, err = pathrs.OpenatInRoot(root, filepath.Join(rel, p)); err != nil {
				h.Close()
				return nil, err
			}
		}
		err := unix.Fchmodat(unix.AT_FDCWD, FDPath(d), mode, 0)
		if d != h {
			d.Close()
		}
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("chmod %s: %w", p, err)
		}
	}
	return h, nil
}

// FDPath is the /proc path of an open file: opening or mounting it reaches the open object.
func FDPath(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// FileMode converts a stat mode's type bits into an fs.FileMode type.
func FileMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFREG:
		return 0
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// within reports whether path is root or below it (both clean and absolute).
func within(path, root string) bool {
	if root == "/" {
		return true
	}
	return path == root || len(path) > len(root) && path[:len(root)] == root && path[len(root)] == '/'
}
