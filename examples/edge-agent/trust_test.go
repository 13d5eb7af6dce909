package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The manifest directory must be root's alone, as must every directory above it (a sticky one
// aside), or the agent refuses it naming the path, its owner and mode, and the fix.
func TestTrustedManifestDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
	base := t.TempDir() // below /tmp: sticky and world-writable, which is fine for a parent
	mk := func(rel string, mode os.FileMode, uid int) string {
		t.Helper()
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := mk("good", 0o755, 0)
	if got, err := trustedManifestDir(good); err != nil || got != good {
		t.Errorf("trustedManifestDir(%s) = %q, %v", good, got, err)
	}
	link := filepath.Join(mk("userdir", 0o755, 1000), "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if got, err := trustedManifestDir(link); err != nil || got != good {
		t.Errorf("trustedManifestDir(%s) = %q, %v: want the symlink resolved to %s", link, got, err, good)
	}
	mk("sticky", 0o777|os.ModeSticky, 0)
	if _, err := trustedManifestDir(mk("sticky/m", 0o700, 0)); err != nil {
		t.Errorf("below a sticky world-writable dir: %v, want accepted", err)
	}
	for _, c := range []struct {
		dir, bad, owner string
	}{
		{mk("world", 0o777, 0), "world", "uid 0 with mode drwxrwxrwx"},
		{mk("group", 0o775, 0), "group", "uid 0 with mode drwxrwxr-x"},
		{mk("user", 0o755, 1000), "user", "uid 1000 with mode drwxr-xr-x"},
		{mk("open/m", 0o755, 0), "open", "uid 0 with mode drwxrwxrwx"},
		{mk("owned/m", 0o755, 0), "owned", "uid 1000 with mode drwxr-xr-x"},
	} {
		switch c.bad {
		case "open":
			mk("open", 0o777, 0)
		case "owned":
			mk("owned", 0o755, 1000)
		}
		bad := filepath.Join(base, c.bad)
		_, err := trustedManifestDir(c.dir)
		var ue *untrustedError
		if !errors.As(err, &ue) || ue.Path != bad || !strings.Contains(err.Error(), c.owner) ||
			!strings.Contains(err.Error(), "chown root:root "+bad+" && chmod go-w "+bad) {
			t.Errorf("trustedManifestDir(%s): %v, want %s refused (%s) naming the fix", c.dir, err, bad, c.owner)
		}
	}
}

// A manifest file root does not own alone is refused, naming the fix; a symlink is not read.
func TestReadManifestTrust(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
	dir := t.TempDir()
	write := func(name string, mode os.FileMode, uid int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if b, err := readManifest(write("ok.yaml", 0o644, 0), 10); err != nil || string(b) != "x" {
		t.Errorf("readManifest(ok.yaml) = %q, %v", b, err)
	}
	for _, p := range []string{write("user.yaml", 0o644, 1000), write("world.yaml", 0o666, 0), write("group.yaml", 0o664, 0)} {
		if _, err := readManifest(p, 10); err == nil || !strings.Contains(err.Error(), "chown root:root "+p+" && chmod go-w "+p) {
			t.Errorf("readManifest(%s): %v, want refused naming the fix", p, err)
		}
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(filepath.Join(dir, "ok.yaml"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := readManifest(link, 10); err == nil {
		t.Error("readManifest followed a symlink")
	}
}
