package subpath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Open follows links that stay in the volume, creates what is missing inside it, and
// refuses every way out, creating nothing.
func TestOpenSubPath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "vol")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root + "/real/deep", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"inside":   "real",                         // relative, inside
		"absolute": filepath.Join(root, "real"),    // absolute, inside on the host
		"up":       "real/../real/deep",            // through .. but inside
		"root":     "/",                            // the CVE-2017-1002101 link
		"etc":      "/etc",                         // absolute, out
		"climb":    "../outside",                   // relative, out
		"dangling": "/nonexistent-podlife-subpath", // to nothing
		"real/out": outside,                        // deeper, out
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	// Created directories take the root's mode exactly (umask ignored, setgid kept).
	if err := os.Chmod(root, 0o775|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	rootFile, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rootFile.Close()
	for _, tc := range []struct {
		sub, want string // want "" means refused
	}{
		{"real", "real"},
		{"real/deep", "real/deep"},
		{"inside", "real"},
		{"inside/deep", "real/deep"},
		{"absolute", "real"},
		{"up", "real/deep"},
		{"new/a/b", "new/a/b"},       // created
		{"inside/made", "real/made"}, // created through an inside link
		{"root", ""},
		{"root/tmp", ""},
		{"root/podlife-subpath-missing", ""},
		{"etc", ""},
		{"climb", ""},
		{"climb/x", ""},
		{"dangling", ""},
		{"dangling/x", ""},
		{"real/out", ""},
		{"real/out/x", ""},
	} {
		h, err := Open(rootFile, tc.sub)
		if tc.want == "" {
			if !errors.Is(err, ErrEscapes) {
				t.Errorf("Open(%q) = %v, want an ErrEscapes error", tc.sub, err)
			}
			if h != nil {
				h.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", tc.sub, err)
			continue
		}
		got, _ := os.Readlink(FDPath(h))
		h.Close()
		if want := filepath.Join(root, tc.want); got != want {
			t.Errorf("Open(%q) opened %s, want %s", tc.sub, got, want)
		}
	}
	for _, d := range []string{"new", "new/a", "new/a/b", "real/made"} {
		fi, err := os.Stat(filepath.Join(root, d))
		if err != nil || fi.Mode() != os.ModeDir|os.ModeSetgid|0o775 {
			t.Errorf("%s: mode %v, %v; want the root's (dgrwxrwxr-x)", d, fi.Mode(), err)
		}
	}
	// Nothing was created outside the volume, nor in its place inside.
	for _, p := range []string{"/podlife-subpath-missing", "/nonexistent-podlife-subpath", filepath.Join(outside, "x"),
		filepath.Join(root, "podlife-subpath-missing"), filepath.Join(root, "nonexistent-podlife-subpath"), filepath.Join(root, "x")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}
