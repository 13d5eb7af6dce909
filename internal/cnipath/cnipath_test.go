package cnipath

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestDirsPrefersTheEnvironment(t *testing.T) {
	t.Setenv(EnvVar, "/a"+string(filepath.ListSeparator)+"/b")
	if got, want := Dirs(t.TempDir()), []string{"/a", "/b"}; !slices.Equal(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
}

func TestDirsFallsBackToCachedThenDefaults(t *testing.T) {
	t.Setenv(EnvVar, "")
	dir := t.TempDir()
	if got := Dirs(dir); !slices.Equal(got, []string{dir}) {
		t.Errorf("Dirs(existing) = %q, want [%s]", got, dir)
	}
	if got := Dirs(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("Dirs(missing) = %q, want nil (the cni defaults)", got)
	}
	if got := Dirs(""); got != nil {
		t.Errorf(`Dirs("") = %q, want nil`, got)
	}
}
