// Command crashmgr is the managing process of podlife's crash-point tests
// (podlife/crash_linux_test.go): built with -tags failpoints, it runs one pod through its whole
// life (Run with a slow postStart, a container restart, Stop with a slow preStop, Remove) and
// is killed by the failpoint PODLIFE_FAILPOINT names (see internal/failpoint). It prints
// "crashmgr: done" if it got to the end, which in a crash test means the point was not hit.
//
// With "mode": "pool" it drives the warm pool instead (podlife/pool_crash_linux_test.go): it
// prewarms one member of crashpod.PoolSpec (behind the exec gate if "execGate" names it) and,
// with "take", runs the pod of that spec from it and waits until it is ready.
//
// Its configuration is JSON in PODLIFE_CRASHMGR (see config).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/crashpod"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// config is what the test passes: the harness's containerd, namespace, state dir and bridge.
type config struct {
	Address   string           `json:"address"`
	Namespace string           `json:"namespace"`
	StateDir  string           `json:"stateDir"`
	Bridge    cni.BridgeConfig `json:"bridge"`
	Logger    string           `json:"logger"`
	Image     string           `json:"image"`
	Pod       string           `json:"pod"`
	Mode      string           `json:"mode,omitempty"`     // "pool": the warm pool's life (runPool)
	ExecGate  string           `json:"execGate,omitempty"` // Config.ExecGate, in pool mode
	Take      bool             `json:"take,omitempty"`     // in pool mode: Run the pod from the member
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "crashmgr:", err)
		os.Exit(1)
	}
	fmt.Println("crashmgr: done")
}

func run() error {
	var cfg config
	if err := json.Unmarshal([]byte(os.Getenv("PODLIFE_CRASHMGR")), &cfg); err != nil {
		return fmt.Errorf("PODLIFE_CRASHMGR: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nw, err := cni.NewBridge(cfg.Bridge)
	if err != nil {
		return err
	}
	rt, err := podlife.New(ctx, podlife.Config{
		Address: cfg.Address, Namespace: cfg.Namespace, StateDir: cfg.StateDir, Network: nw,
		ContainerLogger: cfg.Logger, ExecGate: cfg.ExecGate,
		Backoff: podlife.Backoff{Initial: 100 * time.Millisecond},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	if cfg.Mode == "pool" {
		return runPool(ctx, rt, cfg)
	}
	pod, err := rt.Run(ctx, crashpod.Spec(cfg.Pod, cfg.Image))
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	// b's restart: running again with restartCount 1.
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		for _, c := range s.ContainerStatuses {
			if c.Name == "b" && (c.RestartCount < 1 || c.State.Running == nil) {
				return false
			}
		}
		return true
	}); err != nil {
		return fmt.Errorf("wait for b's restart: %w", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		return err
	}
	if err := pod.Stop(ctx); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	if err := pod.Remove(ctx); err != nil {
		return fmt.Errorf("remove: %w", err)
	}
	return nil
}

// runPool prewarms one member of crashpod.PoolSpec and, with cfg.Take, runs the pod cfg.Pod
// from it (a warm start) and waits until it is ready.
func runPool(ctx context.Context, rt *podlife.Runtime, cfg config) error {
	spec := crashpod.PoolSpec(cfg.Pod, cfg.Image)
	if err := rt.Prewarm(ctx, spec, 1); err != nil {
		return fmt.Errorf("prewarm: %w", err)
	}
	if !cfg.Take {
		return nil
	}
	pod, err := rt.Run(ctx, spec)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if !slices.ContainsFunc(pod.Events(), func(e podlife.Event) bool { return e.Reason == reasons.StartedFromPool }) {
		return fmt.Errorf("run: the pod did not start from the warm pool: %v", pod.Events())
	}
	return pod.WaitReady(ctx)
}
