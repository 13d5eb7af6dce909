// Command crashmgr is the managing process of podlife's crash-point tests
// (podlife/crash_linux_test.go): built with -tags failpoints, it runs one pod through its whole
// life (Run with a slow postStart, a container restart, Stop with a slow preStop, Remove) and
// is killed by the failpoint PODLIFE_FAILPOINT names (see internal/failpoint). It prints
// "crashmgr: done" if it got to the end, which in a crash test means the point was not hit.
//
// Its configuration is JSON in PODLIFE_CRASHMGR (see config).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/crashpod"
	"github.com/podlife/podlife/podlife"
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
		ContainerLogger: cfg.Logger,
		Backoff:         podlife.Backoff{Initial: 100 * time.Millisecond},
		Logger:          slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		return err
	}
	defer rt.Close()
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
