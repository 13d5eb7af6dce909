package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife/containerlogger"
)

// TestMain points the CLI (and the supervisors it starts, which inherit the environment) at the
// CNI plugins `make` builds from go.mod, when PODLIFE_CNI_PATH is not set and they were built.
//
// The tests that run the CLI in this process make the test binary the container logger (the
// CLI is its own, see main): it serves as one when the shim starts it so.
func TestMain(m *testing.M) {
	if containerlogger.Invoked() {
		containerlogger.Serve()
	}
	if os.Getenv(cnipath.EnvVar) == "" {
		if dirs := cnipath.Dirs(filepath.Join("..", "..", ".cache", "cni", "bin")); dirs != nil {
			os.Setenv(cnipath.EnvVar, dirs[0])
		}
	}
	os.Exit(m.Run())
}
