package measure

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"syscall"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// Image is the bench image (busybox), imported into every namespace of the run.
const Image = "podlife.bench/busybox:1"

// Env is what every measurement shares.
type Env struct {
	Dir    string
	Ctrd   *podlifetest.Containerd
	Bridge *cni.Bridge
	Subnet netip.Prefix
	Logger *slog.Logger
	RunID  string
	// ContainerLogger is Config.ContainerLogger of every Runtime.
	ContainerLogger string
}

// NS names a containerd namespace of this run (unique, so no earlier run's leftovers collide).
func (e *Env) NS(what string) string { return "plb-" + e.RunID + "-" + what }

// ContainerCmd is what both the floor and podlife run. Both stop it with SIGKILL: a signal
// with a handler installed by the workload would race with the workload's own start.
var ContainerCmd = []string{"sleep", "3600"}

// Runtime opens a podlife Runtime on namespace ns of the run's containerd, with the run's
// network and container logger, and imports the bench image into it.
// Each opt changes the Config first.
func (e *Env) Runtime(ctx context.Context, ns string, shims podlife.ShimMode, opts ...func(*podlife.Config)) (*podlife.Runtime, error) {
	cfg := podlife.Config{Address: e.Ctrd.Daemon.Address(), Namespace: ns,
		StateDir: filepath.Join(e.Dir, ns), Network: e.Bridge, Shims: shims, Logger: e.Logger, ContainerLogger: e.ContainerLogger}
	for _, o := range opts {
		o(&cfg)
	}
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := podlifetest.BusyboxArchive(&buf, Image); err != nil {
		rt.Close()
		return nil, err
	}
	if _, err := rt.ImportImage(ctx, &buf); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}

// BenchPod is the bench pod: two busybox containers running ContainerCmd, stopped with SIGKILL.
func BenchPod(name string) podlife.PodSpec {
	return podlife.PodSpec{Name: name, Containers: []podlife.ContainerSpec{
		{Name: "c1", Image: Image, Command: ContainerCmd, StopSignal: syscall.SIGKILL},
		{Name: "c2", Image: Image, Command: ContainerCmd, StopSignal: syscall.SIGKILL},
	}}
}

// RunRemove runs the bench pod named name on rt and removes it.
func RunRemove(ctx context.Context, rt *podlife.Runtime, name string) error {
	p, err := rt.Run(ctx, BenchPod(name))
	if err != nil {
		return err
	}
	return p.Remove(ctx)
}

// CheckShims fails if shims of namespace ns outlive their pods; then it removes the host
// directories (runc state, cgroups) that the namespace's containers leave behind.
func CheckShims(ctx context.Context, ns string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if leaks := podlifetest.ShimLeaks(ctx, ns); len(leaks) > 0 {
		return fmt.Errorf("leak: %v", leaks)
	}
	return podlifetest.RemoveNamespaceDirs(ns)
}
