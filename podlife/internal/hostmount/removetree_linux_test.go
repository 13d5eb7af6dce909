package hostmount

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// RemoveTree deletes a tree like os.RemoveAll but never through a mount: a bind mount of a
// directory of the same filesystem (same st_dev, another mount ID), a tmpfs (another device) and
// a file bind-mounted over one of the tree's are refused with an error naming them, the rest is
// deleted, and what they show keeps its files; a symlink out of the tree is deleted, not followed.
func TestRemoveTreeStopsAtMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (mounts)")
	}
	host := t.TempDir() // the same filesystem as the tree
	for name, content := range map[string]string{"keep": "keep", "sub/deep": "deep"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(host, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(host, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hostIntact := func() {
		t.Helper()
		for name, content := range map[string]string{"keep": "keep", "sub/deep": "deep"} {
			if b, err := os.ReadFile(filepath.Join(host, name)); err != nil || string(b) != content {
				t.Errorf("host file %s: %q %v, want %q", name, b, err, content)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		mount func(t *testing.T, at string) // mounts something at at (a directory made for it)
		file  bool                          // at is a file
	}{
		{"bind same fs", func(t *testing.T, at string) { mustMount(t, host, at, "", unix.MS_BIND) }, false},
		{"tmpfs", func(t *testing.T, at string) { mustMount(t, "tmpfs", at, "tmpfs", 0) }, false},
		{"file", func(t *testing.T, at string) { mustMount(t, filepath.Join(host, "keep"), at, "", unix.MS_BIND) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := filepath.Join(t.TempDir(), "pod")
			at := filepath.Join(tree, "subpaths", "x", "0")
			if err := os.MkdirAll(filepath.Join(tree, "logs", "c"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tree, "logs", "c", "0.log"), []byte("log"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(host, filepath.Join(tree, "link")); err != nil {
				t.Fatal(err)
			}
			if tc.file {
				if err := os.MkdirAll(filepath.Dir(at), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(at, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			} else if err := os.MkdirAll(at, 0o700); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = unix.Unmount(at, unix.MNT_DETACH) }()
			tc.mount(t, at)
			if tc.name == "tmpfs" { // what a mounted tmpfs holds must survive too
				if err := os.WriteFile(filepath.Join(at, "in-tmpfs"), []byte("t"), 0o600); err != nil {
					t.Fatal(err)
				}
			}

			err := RemoveTree(tree)
			if !errors.Is(err, ErrMountInTheWay) && !errors.Is(err, unix.EBUSY) || !strings.Contains(err.Error(), at) {
				t.Errorf("RemoveTree through a mount at %s: %v, want an error naming it", at, err)
			}
			hostIntact()
			if tc.name == "tmpfs" {
				if _, err := os.Stat(filepath.Join(at, "in-tmpfs")); err != nil {
					t.Errorf("the tmpfs's file: %v, want it kept", err)
				}
			}
			for _, gone := range []string{"logs", "link"} {
				if _, err := os.Lstat(filepath.Join(tree, gone)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: %v, want it deleted", gone, err)
				}
			}
			if err := unix.Unmount(at, unix.MNT_DETACH); err != nil {
				t.Fatal(err)
			}
			if err := RemoveTree(tree); err != nil {
				t.Errorf("RemoveTree once unmounted: %v", err)
			}
			if _, err := os.Lstat(tree); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("tree: %v, want it deleted", err)
			}
			hostIntact()
		})
	}
	// The tree's root itself a mount point.
	t.Run("root", func(t *testing.T) {
		tree := filepath.Join(t.TempDir(), "pod")
		if err := os.Mkdir(tree, 0o700); err != nil {
			t.Fatal(err)
		}
		mustMount(t, host, tree, "", unix.MS_BIND)
		defer func() { _ = unix.Unmount(tree, unix.MNT_DETACH) }()
		if err := RemoveTree(tree); !errors.Is(err, ErrMountInTheWay) {
			t.Errorf("RemoveTree of a mount point: %v, want ErrMountInTheWay", err)
		}
		hostIntact()
	})
	if err := RemoveTree(filepath.Join(host, "missing")); err != nil {
		t.Errorf("RemoveTree of nothing: %v", err)
	}
}

func mustMount(t *testing.T, src, at, fstype string, flags uintptr) {
	t.Helper()
	if err := unix.Mount(src, at, fstype, flags, ""); err != nil {
		t.Fatalf("mount %s on %s: %v", src, at, err)
	}
}
