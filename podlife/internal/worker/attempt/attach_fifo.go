package attempt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// AttachFIFOs returns the FIFO paths of the instance id of a pod whose directory is podDir.
func AttachFIFOs(podDir, id string, stdin, tty bool) cio.Config {
	base := filepath.Join(podDir, "attach", id)
	cfg := cio.Config{Stdout: base + "-stdout", Terminal: tty}
	if stdin {
		cfg.Stdin = base + "-stdin"
	}
	if !tty {
		cfg.Stderr = base + "-stderr"
	}
	return cfg
}

// AttachOutput makes the FIFOs of an interactive instance id (the clients' and the shim's, see
// tasks.TeeAttach) and returns them as its output.
func AttachOutput(podDir, id string, stdin, tty bool) (tasks.Output, error) {
	cfg := AttachFIFOs(podDir, id, stdin, tty)
	if err := os.MkdirAll(filepath.Join(podDir, "attach"), 0o700); err != nil {
		return tasks.Output{}, fmt.Errorf("attach: %w", err)
	}
	shim := tasks.ShimFIFOs(cfg)
	for _, path := range []string{cfg.Stdin, cfg.Stdout, cfg.Stderr, shim.Stdout, shim.Stderr} {
		if path == "" {
			continue
		}
		if err := syscall.Mkfifo(path, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			return tasks.Output{}, fmt.Errorf("attach: %w", err)
		}
	}
	return tasks.Output{Attach: &cfg}, nil
}
