package podlife_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// The tests here run a pod's manager as a child process (this test binary, re-executed to run
// TestAdoptManagerProcess) and SIGKILL it, as a crash would end it; then the test's own Runtime
// adopts the pod.

// managerConfig is what the child manager gets (in PODLIFE_ADOPT_MANAGER).
type managerConfig struct {
	Address, Namespace, StateDir, Logger string
	ExecGate                             string // Config.ExecGate (the harness's)
	Bridge                               cni.BridgeConfig
	Scenario, Marks                      string
}

// crashSpec is the pod of a scenario, the same in the child and in the adopter.
func crashSpec(scenario, marks string) podlife.PodSpec {
	spec := podlife.PodSpec{
		Name: "crash-" + scenario, TerminationGracePeriod: ptr(5 * time.Second),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
		}},
	}
	c := &spec.Containers[0]
	switch scenario {
	case "exit":
		// Exits with code 3 once /marks/exit exists (and removes it, so that its restart runs on).
		c.Command = []string{"/bin/sh", "-c", "echo start >> /marks/starts; trap 'exit 0' TERM; " +
			"while [ ! -f /marks/exit ]; do sleep 0.1; done; rm /marks/exit; exit 3"}
	case "poststart":
		// The first postStart hangs (the manager is killed meanwhile); later ones return at once.
		c.Command = []string{"/bin/sh", "-c", "echo start >> /marks/starts; trap 'exit 0' TERM; while true; do sleep 1; done"}
		c.PostStart = hook.Exec("/bin/sh", "-c", "if [ -f /marks/hooked ]; then exit 0; fi; touch /marks/hooked; sleep 3600")
	case "startcut":
		// As poststart, with a second container that the hanging hook keeps from starting
		// (Sequential): the kill interrupts the start sequence.
		c.Command = []string{"/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"}
		c.PostStart = hook.Exec("/bin/sh", "-c", "touch /marks/hooked; sleep 3600")
		spec.Containers = append(spec.Containers, podlife.ContainerSpec{Name: "second", Image: testImage,
			Command: []string{"/bin/sh", "-c", "echo second >> /marks/second; trap 'exit 0' TERM; while true; do sleep 1; done"}})
	}
	return spec
}

// TestAdoptManagerProcess is the child manager: it starts its scenario's pod, says RUNNING once
// the start was handed over, and waits to be killed.
func TestAdoptManagerProcess(t *testing.T) {
	raw := os.Getenv("PODLIFE_ADOPT_MANAGER")
	if raw == "" {
		t.Skip("the child manager of the adoption tests")
	}
	var cfg managerConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nw, err := cni.NewBridge(cfg.Bridge)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := podlife.New(ctx, podlife.Config{Address: cfg.Address, Namespace: cfg.Namespace, StateDir: cfg.StateDir,
		Network: nw, ContainerLogger: cfg.Logger, ExecGate: cfg.ExecGate, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Scenario == "pool" {
		// Keeps a warm pool of 2 (TestWarmPoolCrash).
		if err := rt.Prewarm(ctx, poolSpec(cfg.Marks), 2); err != nil {
			t.Fatal(err)
		}
		fmt.Println("RUNNING")
		select {}
	}
	spec := crashSpec(cfg.Scenario, cfg.Marks)
	if cfg.ExecGate != "" {
		// The pod is taken from a warm pool member behind the exec gate (TestExecGateStartCut).
		if err := rt.Prewarm(ctx, spec, 1); err != nil {
			t.Fatal(err)
		}
	}
	pod, err := rt.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Scenario == "exit" {
		if err := pod.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("RUNNING")
	select {}
}

// startManager runs the child manager of scenario and waits for its RUNNING.
func startManager(t *testing.T, h *harness, scenario, marks string) *exec.Cmd {
	t.Helper()
	raw, err := json.Marshal(managerConfig{Address: h.cfg.Address, Namespace: h.cfg.Namespace, StateDir: h.cfg.StateDir,
		Logger: h.cfg.ContainerLogger, ExecGate: h.cfg.ExecGate, Bridge: h.bridge, Scenario: scenario, Marks: marks})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.short", "-test.run=^TestAdoptManagerProcess$", "-test.timeout="+budget(10*time.Minute).String())
	cmd.Env = append(os.Environ(), "PODLIFE_ADOPT_MANAGER="+string(raw))
	cmd.Stderr = h.logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timer := time.NewTimer(budget(2 * time.Minute))
	defer timer.Stop()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the manager ended before RUNNING")
			}
			if l == "RUNNING" {
				go func() {
					for range lines {
					}
				}()
				return cmd
			}
		case <-timer.C:
			t.Fatalf("no RUNNING from the manager")
		}
	}
}

// kill SIGKILLs the child manager and reaps it.
func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// waitPath waits (up to budget(30 s)) for path to exist.
func waitPath(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(budget(30 * time.Second))
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A container that exits while no manager runs is restarted on adoption per the policy: its
// restart count goes up once, and its last state has its real exit code and time.
func TestAdoptExitWhileUnmanaged(t *testing.T) {
	marks := t.TempDir()
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	spec := crashSpec("exit", marks)
	removeAtEnd(t, h, spec.Name)
	mgr := startManager(t, h, "exit", marks)
	// status.json follows the pod a moment behind: the adopter takes the start time from it.
	waitRecord(t, ctx, h.rt, spec.Name, "running", func(r podlife.PodRecord) bool { return every(r.Status.ContainerStatuses, runningReady) })
	kill(t, mgr)
	waitRecord(t, ctx, h.rt, spec.Name, "unmanaged", func(r podlife.PodRecord) bool { return !r.Managed() })
	told := time.Now()
	if err := os.WriteFile(filepath.Join(marks, "exit"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := waitRecord(t, ctx, h.rt, spec.Name, "exited", func(r podlife.PodRecord) bool { return terminated(r.Status.ContainerStatuses[0]) })
	exitedAt := rec.Status.ContainerStatuses[0].State.Terminated.FinishedAt
	adoptedAt := time.Now()
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		c := s.ContainerStatuses[0]
		return c.RestartCount >= 1 && c.State.Running != nil
	})
	if err != nil {
		t.Fatalf("no restart after adoption: %v (status %+v)", err, pod.Status())
	}
	c := st.ContainerStatuses[0]
	last := c.LastState.Terminated
	switch {
	case c.RestartCount != 1:
		t.Errorf("restart count %d, want 1", c.RestartCount)
	case last == nil || last.ExitCode != 3:
		t.Errorf("last state %+v, want terminated with code 3", c.LastState)
	case last.FinishedAt.Before(told.Add(-time.Second)) || !last.FinishedAt.Before(adoptedAt) || !last.FinishedAt.Equal(exitedAt):
		t.Errorf("exit recorded at %v, want the real exit (%v, after %v, before the adoption at %v)", last.FinishedAt, exitedAt, told, adoptedAt)
	}
	waitFileLines(t, filepath.Join(marks, "starts"), 2)
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// A postStart hook that its manager's death interrupted is a postStart failure after adoption:
// FailedPostStartHook, the container killed and restarted per policy.
func TestAdoptInterruptedPostStart(t *testing.T) {
	marks := t.TempDir()
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	spec := crashSpec("poststart", marks)
	removeAtEnd(t, h, spec.Name)
	mgr := startManager(t, h, "poststart", marks)
	waitPath(t, filepath.Join(marks, "hooked"))
	kill(t, mgr)
	waitRecord(t, ctx, h.rt, spec.Name, "unmanaged", func(r podlife.PodRecord) bool { return !r.Managed() })
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	waitEvent(t, ctx, pod, "app", reasons.FailedPostStartHook)
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		c := s.ContainerStatuses[0]
		return c.RestartCount == 1 && c.State.Running != nil
	})
	if err != nil {
		t.Fatalf("no restart after the interrupted postStart: %v (status %+v)", err, pod.Status())
	}
	if last := st.ContainerStatuses[0].LastState.Terminated; last == nil {
		t.Errorf("last state %+v, want terminated", st.ContainerStatuses[0].LastState)
	}
	waitFileLines(t, filepath.Join(marks, "starts"), 2)
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := h.rt.LookupPod(ctx, spec.Name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("LookupPod after Remove: %v", err)
	}
}

// removeAtEnd removes the pod (whoever manages it) before the harness's leak check, if the
// test did not.
func removeAtEnd(t *testing.T, h *harness, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("Pod.Remove %s: %v", name, err)
		}
	})
}

// A pod whose start sequence the manager's death interrupted is not resumed: the adopter stops
// it, Failed with reason StartInterrupted, and Remove removes it whole.
func TestAdoptInterruptedStart(t *testing.T) {
	marks := t.TempDir()
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	spec := crashSpec("startcut", marks)
	removeAtEnd(t, h, spec.Name)
	mgr := startManager(t, h, "startcut", marks)
	waitPath(t, filepath.Join(marks, "hooked"))
	kill(t, mgr)
	waitRecord(t, ctx, h.rt, spec.Name, "unmanaged", func(r podlife.PodRecord) bool { return !r.Managed() })
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	waitEvent(t, ctx, pod, "", reasons.StartInterrupted)
	st, err := pod.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if st.Phase != podlife.PhaseFailed || st.Reason != reasons.StartInterrupted || !strings.Contains(st.Message, `container "second" was not started`) {
		t.Errorf("status %s %s %q, want Failed StartInterrupted naming the container not started", st.Phase, st.Reason, st.Message)
	}
	waitEvent(t, ctx, pod, "", reasons.Stopped)
	if _, err := os.Stat(filepath.Join(marks, "second")); err == nil {
		t.Errorf("the container not started by the dead manager was started")
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// waitFileLines waits (up to budget(30 s)) until path has n lines.
func waitFileLines(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(budget(30 * time.Second))
	for {
		if got := countLines(t, path); got == n {
			return
		} else if got > n || time.Now().After(deadline) {
			t.Fatalf("%s has %d lines, want %d", path, got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
