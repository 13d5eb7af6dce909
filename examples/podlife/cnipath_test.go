package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/internal/cnipath"
)

// TestMain points the CLI (and the supervisors it starts, which inherit the environment) at the
// CNI plugins `make` builds from go.mod, when PODLIFE_CNI_PATH is not set and they were built.
func TestMain(m *testing.M) {
	if os.Getenv(cnipath.EnvVar) == "" {
		if dirs := cnipath.Dirs(filepath.Join("..", "..", ".cache", "cni", "bin")); dirs != nil {
			os.Setenv(cnipath.EnvVar, dirs[0])
		}
	}
	os.Exit(m.Run())
}
