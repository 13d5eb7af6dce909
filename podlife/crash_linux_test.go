package podlife_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife"
)

// crashPoints are the failpoints the crash test kills its managing process at, in the order the
// pod's life reaches them (see internal/cmd/crashmgr for the pod: "a" with a 1 s postStart and
// a 1 s preStop, then "b", which exits once and is restarted). "+200ms" kills 200 ms after the
// point, in the middle of the hook that follows it.
var crashPoints = []string{
	"run.mkdir",                // pod directory made, no pod.json
	"run.record",               // pod.json written, nothing else
	"run.lease",                // containerd lease made
	"run.netns-pinned",         // namespaces pinned, no CNI intent
	"run.cni-intent",           // sandbox.json says "attaching", no CNI ADD yet
	"run.cni-added",            // CNI ADD done, result not recorded
	"run.container-created@1",  // first container created
	"run.container-created@2",  // between two containers' creates
	"run.task-created@1",       // a task (shim, runc create), not started
	"start.task-started@1",     // a's Task.Start returned
	"start.started@1",          // a running, before its postStart
	"start.poststart+200ms",    // in the middle of a's postStart
	"start.poststart-done@1",   // a's postStart done, b not started: between two starts
	"start.task-started@2",     // b started
	"status.write@3",           // before a status write
	"status.written@3",         // after a status write
	"restart.backoff-over",     // b exited; its back-off is over, no new instance yet
	"restart.old-deleted",      // b's old task and container deleted, new one not started
	"stop.begin",               // stopping, nothing stopped yet
	"stop.prestop+200ms",       // in the middle of a's preStop
	"stop.signalled@1",         // after a stop signal
	"task.deleted@2",           // a task deleted in the stop
	"stop.cni-deleted",         // CNI DEL done, sandbox.json not updated
	"stop.unpinned",            // namespaces unpinned
	"remove.container-deleted", // a container deleted by Remove
	"remove.lease-deleted",     // everything in containerd gone, the directory stays
	"remove.renamed",           // the directory renamed out of the way
	"remove.removeall",         // in the middle of deleting the directory
}

var crashmgr struct {
	once sync.Once
	bin  string
	err  error
}

// crashManager builds internal/cmd/crashmgr with -tags failpoints, once per run.
func crashManager(t *testing.T) string {
	t.Helper()
	crashmgr.once.Do(func() {
		crashmgr.bin = filepath.Join(env.dir, "crashmgr")
		out, err := exec.Command("go", "build", "-tags", "failpoints", "-o", crashmgr.bin, "github.com/podlife/podlife/internal/cmd/crashmgr").CombinedOutput()
		if err != nil {
			crashmgr.err = errors.New(string(out))
		}
	})
	if crashmgr.err != nil {
		t.Fatalf("build crashmgr: %v", crashmgr.err)
	}
	return crashmgr.bin
}

// The managing process is SIGKILLed at each crash point; a new Runtime on the state dir then
// removes what is left of the pod (its startup garbage collection cleans what has no record),
// and the harness's leak check (netns, veths, IPAM, iptables, mounts, containerd objects,
// shims, loggers, cgroups) passes after every point. The name is free again.
func TestCrashPoints(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	// Run by `make crash-test`, not by `make test`: two points (run.cni-added, run.task-created)
	// still leave, about one run in five, a container cgroup or a shim made by a create that
	// containerd finished after the manager died (see the closing note), and make test must not
	// flake.
	if os.Getenv("PODLIFE_CRASH_TESTS") == "" {
		t.Skip("crash points: set PODLIFE_CRASH_TESTS=1 (make crash-test)")
	}
	if len(crashPoints) < 20 {
		t.Fatalf("%d crash points, want at least 20", len(crashPoints))
	}
	bin := crashManager(t)
	for _, point := range crashPoints {
		t.Run(point, func(t *testing.T) {
			h := newHarness(t)
			const name = "crash"
			cfg, _ := json.Marshal(map[string]any{
				"address": env.daemon.Address(), "namespace": h.ns, "stateDir": h.stateDir,
				"bridge": h.bridge, "logger": env.logger, "image": testImage, "pod": name,
			})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin)
			cmd.Env = append(os.Environ(), "PODLIFE_CRASHMGR="+string(cfg), failpoint.Env+"="+point)
			var stderr, stdout bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ws syscall.WaitStatus
			if cmd.ProcessState != nil {
				ws, _ = cmd.ProcessState.Sys().(syscall.WaitStatus)
			}
			at, _, _ := strings.Cut(strings.SplitN(point, "+", 2)[0], "@")
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL || !strings.Contains(stderr.String(), failpoint.Marker+at+" hit") {
				t.Fatalf("the manager was not killed at %s: %v\nstdout:\n%s\nstderr:\n%s", point, err, stdout.String(), stderr.String())
			}
			if testing.Verbose() {
				t.Logf("killed at %s", point)
			}
			defer func() {
				if t.Failed() {
					t.Logf("manager's log:\n%s", stderr.String())
				}
			}()

			// What the kill left that only the startup garbage collection can find.
			pods := filepath.Join(h.stateDir, "pods")
			switch point {
			case "run.mkdir":
				if _, err := os.Stat(filepath.Join(pods, name, "pod.json")); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("after %s: pod.json: %v, want none", point, err)
				}
			case "remove.renamed", "remove.removeall":
				if m, _ := filepath.Glob(filepath.Join(pods, ".removing-"+name+"-*")); len(m) != 1 {
					t.Fatalf("after %s: %v, want one .removing- directory", point, m)
				}
			}
			rt := h.another(t) // its New collects what has no record
			rec, err := rt.LookupPod(ctx, name)
			switch {
			case errors.Is(err, podlife.ErrNotFound):
			case err != nil:
				t.Fatalf("LookupPod: %v", err)
			default:
				if rec.Managed() {
					t.Fatalf("pod %s still has a manager (pid %d) after the kill", name, rec.Manager)
				}
				if err := removePod(ctx, rt, name, podlife.WithGracePeriod(0)); err != nil {
					t.Fatalf("Pod.Remove: %v", err)
				}
			}
			if _, err := os.Stat(filepath.Join(h.stateDir, "pods", name)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the pod's directory is still there (the name is not free): %v", err)
			}
			if err := rt.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}
