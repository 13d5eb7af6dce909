// Command upgrademgr is the old side of podlife's upgrade test (podlife/upgrade_test.go): the
// test copies it into a tree of an earlier commit (upgradeBase), builds it there, and runs it.
// With that commit's code it runs the pod of upgradeSpec (keep the two in step), waits until
// the pod is ready and its restarting container has restarted once, prints the pod's status as
// JSON on stdout and exits, leaving the pod running with no manager for the tree under test to
// adopt. It compiles against the old commit's API only: it is not built with this tree.
//
// Its configuration is JSON in PODLIFE_UPGRADEMGR (see config).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/probe"
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

// spec is the upgrade test's pod (upgradeSpec in podlife/upgrade_test.go): "web" with a
// postStart hook, a startup and a readiness probe; "side", which exits once (3) and is
// restarted.
func spec(name, image string) podlife.PodSpec {
	grace := 5 * time.Second
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: &grace,
		Volumes: []podlife.Volume{{Name: "m", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{{
			Name: "web", Image: image,
			Command:        []string{"/bin/sh", "-c", `echo web up; trap 'exit 0' TERM; while :; do sleep 0.1; done`},
			VolumeMounts:   []podlife.VolumeMount{{Name: "m", MountPath: "/m"}},
			PostStart:      hook.Exec("/bin/sh", "-c", "echo started > /m/poststart"),
			StartupProbe:   &probe.Spec{Prober: probe.Exec("/bin/true"), Period: 200 * time.Millisecond},
			ReadinessProbe: &probe.Spec{Prober: probe.Exec("/bin/cat", "/m/poststart"), Period: 200 * time.Millisecond},
		}, {
			Name: "side", Image: image,
			Command:      []string{"/bin/sh", "-c", `[ -e /m/side-ran ] || { touch /m/side-ran; echo side once; exit 3; }; trap 'exit 0' TERM; while :; do sleep 0.1; done`},
			VolumeMounts: []podlife.VolumeMount{{Name: "m", MountPath: "/m"}},
		}},
	}
}

func main() {
	st, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "upgrademgr:", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(st)
	fmt.Println(string(b))
}

func run() (podlife.PodStatus, error) {
	var cfg config
	if err := json.Unmarshal([]byte(os.Getenv("PODLIFE_UPGRADEMGR")), &cfg); err != nil {
		return podlife.PodStatus{}, fmt.Errorf("PODLIFE_UPGRADEMGR: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nw, err := cni.NewBridge(cfg.Bridge)
	if err != nil {
		return podlife.PodStatus{}, err
	}
	rt, err := podlife.New(ctx, podlife.Config{
		Address: cfg.Address, Namespace: cfg.Namespace, StateDir: cfg.StateDir, Network: nw,
		ContainerLogger: cfg.Logger,
		Backoff:         podlife.Backoff{Initial: 100 * time.Millisecond},
		Logger:          slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		return podlife.PodStatus{}, err
	}
	defer rt.Close() // the pod runs on, managed by nobody
	pod, err := rt.Run(ctx, spec(cfg.Pod, cfg.Image))
	if err != nil {
		return podlife.PodStatus{}, fmt.Errorf("run: %w", err)
	}
	return pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		if s.Phase != podlife.PhaseRunning {
			return false
		}
		for _, c := range s.ContainerStatuses {
			if !c.Ready || c.State.Running == nil || (c.Name == "side" && c.RestartCount != 1) {
				return false
			}
		}
		return true
	})
}
