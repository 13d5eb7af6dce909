package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/hostmount"
)

// WriteFiles creates a files volume in dir (on a tmpfs with medium Memory).
func WriteFiles(dir string, fv *api.FilesVolume) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fv.Medium == api.MediumMemory {
		if err := hostmount.MountTmpfs(dir, "mode=0755"); err != nil {
			return fmt.Errorf("mount tmpfs: %w", err)
		}
	}
	for _, f := range fv.Files {
		path := filepath.Join(dir, filepath.Clean(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		mode := f.Mode // defaulted at admission (File.withDefaults)
		if err := os.WriteFile(path, f.Data, mode); err != nil {
			return err
		}
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
	}
	return nil
}

// CheckHostPath checks a hostPath volume's path against its type, creating it for the
// OrCreate types.
func CheckHostPath(h *api.HostPathVolume) error {
	fi, err := os.Stat(h.Path)
	switch h.Type {
	case api.HostPathUnset:
		return nil
	case api.HostPathDirectoryOrCreate:
		if errors.Is(err, fs.ErrNotExist) {
			return os.MkdirAll(h.Path, 0o755)
		}
	case api.HostPathFileOrCreate:
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(h.Path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(h.Path, os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			return f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("hostPath %s: %w", h.Path, err)
	}
	return HostPathTypeError(h, fi.Mode())
}

// HostPathTypeError checks the type of a hostPath's file (mode) against the volume's type.
func HostPathTypeError(h *api.HostPathVolume, mode fs.FileMode) error {
	switch h.Type {
	case api.HostPathDirectory, api.HostPathDirectoryOrCreate:
		if !mode.IsDir() {
			return fmt.Errorf("hostPath type check failed: %s is not a directory", h.Path)
		}
	case api.HostPathFile, api.HostPathFileOrCreate:
		if !mode.IsRegular() {
			return fmt.Errorf("hostPath type check failed: %s is not a file", h.Path)
		}
	}
	return nil
}
