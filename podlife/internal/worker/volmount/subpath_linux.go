package volmount

import (
	"fmt"
	"os"

	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/subpath"
	"golang.org/x/sys/unix"
)

// safeMount opens what src designates without following a link out of its volume, checks the
// opened object, and bind-mounts that very object (through /proc/self/fd) onto target, which it
// creates (a directory or a file, as the object). Whatever happens to the path afterwards, the
// mount on target is the object checked.
func safeMount(src mountSource, target string) error {
	h, err := openMountSource(src)
	if err != nil {
		return err
	}
	defer h.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(h.Fd()), &st); err != nil {
		return fmt.Errorf("stat mount source: %w", err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = os.Mkdir(target, 0o700)
	} else {
		var f *os.File
		if f, err = os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			err = f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("mount point: %w", err)
	}
	if err := unix.Mount(subpath.FDPath(h), target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind mount source: %w", err)
	}
	return nil
}

// openMountSource returns an O_PATH handle on what src designates. A hostPath is resolved as
// given, symlinks included (as the kubelet does, on the host), then type-checked on the opened
// object; a subPath is resolved inside the root only (see subpath.Open).
func openMountSource(src mountSource) (*os.File, error) {
	if src.hostPath != nil {
		if err := sandbox.CheckHostPath(src.hostPath); err != nil { // creates it for the OrCreate types
			return nil, err
		}
	}
	root, err := os.OpenFile(src.root, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if src.hostPath != nil {
		var st unix.Stat_t
		if err := unix.Fstat(int(root.Fd()), &st); err != nil {
			root.Close()
			return nil, fmt.Errorf("hostPath %s: %w", src.hostPath.Path, err)
		}
		if err := sandbox.HostPathTypeError(src.hostPath, subpath.FileMode(st.Mode)); err != nil {
			root.Close()
			return nil, err
		}
	}
	if src.subPath == "" {
		return root, nil
	}
	defer root.Close()
	h, err := subpath.Open(root, src.subPath)
	if err != nil {
		return nil, fmt.Errorf("subPath %q: %w", src.subPath, err)
	}
	return h, nil
}
