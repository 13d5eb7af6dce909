package volmount

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/subpath"
)

// A hostPath is resolved as given (a symlink is fine) and its type is checked on the opened
// object; a subPath of a hostPath is resolved inside it.
func TestOpenMountSourceHostPath(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "dir")
	file := filepath.Join(base, "file")
	link := filepath.Join(base, "link")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		typ  api.HostPathType
		sub  string
		want string // "" means an error
	}{
		{dir, api.HostPathDirectory, "", dir},
		{link, api.HostPathDirectory, "", dir},
		{link, api.HostPathDirectory, "sub", filepath.Join(dir, "sub")},
		{file, api.HostPathFile, "", file},
		{file, api.HostPathUnset, "", file},
		{link, api.HostPathFile, "", ""},
		{file, api.HostPathDirectory, "", ""},
		{link, api.HostPathUnset, "out", ""},
		{filepath.Join(base, "made"), api.HostPathDirectoryOrCreate, "", filepath.Join(base, "made")},
		{filepath.Join(base, "missing"), api.HostPathUnset, "", ""},
	} {
		hp := &api.HostPathVolume{Path: tc.path, Type: tc.typ}
		h, err := openMountSource(mountSource{root: tc.path, hostPath: hp, subPath: tc.sub})
		if tc.want == "" {
			if err == nil {
				h.Close()
				t.Errorf("%s (%q, subPath %q): opened, want an error", tc.path, tc.typ, tc.sub)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%q, subPath %q): %v", tc.path, tc.typ, tc.sub, err)
			continue
		}
		got, _ := os.Readlink(subpath.FDPath(h))
		h.Close()
		if got != tc.want {
			t.Errorf("%s (%q, subPath %q) opened %s, want %s", tc.path, tc.typ, tc.sub, got, tc.want)
		}
	}
}
