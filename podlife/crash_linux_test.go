package podlife_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/crashpod"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
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
// removes what is left of the pod (its startup garbage collection cleans what has no record);
// at every other point, and at each point where the pod was running (crashRunsOn), it first
// adopts the pod and checks what adoption resumed (adoptAfterCrash). The harness's leak check
// (netns, veths, IPAM, iptables, mounts, containerd objects, shims, loggers, cgroups and the
// processes in them) passes after every point. The name is free again. Every point runs in a
// plain go test (make test); `make crash-test` runs this test alone.
func TestCrashPoints(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	if len(crashPoints) < 20 {
		t.Fatalf("%d crash points, want at least 20", len(crashPoints))
	}
	bin := crashManager(t)
	for i, point := range crashPoints {
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
			rt := h.anotherWith(t, func(c *podlife.Config) {
				c.Backoff = podlife.Backoff{Initial: 100 * time.Millisecond} // crashmgr's
			}) // its New collects what has no record
			rec, err := rt.LookupPod(ctx, name)
			switch {
			case errors.Is(err, podlife.ErrNotFound):
			case err != nil:
				t.Fatalf("LookupPod: %v", err)
			default:
				// At these points an exec (a's postStart or preStop) was in flight: the shim waited
				// 30 s for a reader of its output before it let a's exit through. The stop ends
				// within the pod's grace period plus the kubelet's 2 s (and some slack here).
				if crashExecInFlight[point] {
					began := time.Now()
					defer func() {
						if took, bound := time.Since(began), crashpodGrace+2*time.Second+3*time.Second; took > bound {
							t.Errorf("after %s: adopting and removing the pod took %v, want at most %v", point, took, bound)
						}
					}()
				}
				if rec.Managed() {
					t.Fatalf("pod %s still has a manager (pid %d) after the kill", name, rec.Manager)
				}
				if i%2 == 1 || crashRunsOn[point] || crashStops[point] {
					// A failed check ends the test (runtime.Goexit): the pod is removed
					// anyway, since the harness does not remove another Runtime's pods.
					defer func() {
						if t.Failed() {
							_ = removePod(ctx, rt, name, podlife.WithGracePeriod(0))
						}
					}()
					adoptAfterCrash(ctx, t, rt, rec, point)
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

// crashRunsOn are the points where the pod had started and was not stopping: adopted, it runs
// on. (At status.write@3 and status.written@3 the start is still going: the third status write
// comes early.)
var crashRunsOn = map[string]bool{"restart.backoff-over": true, "restart.old-deleted": true}

// crashExecInFlight are the points where an exec of the manager may be in flight; crashpodGrace
// is the pod's grace period (internal/crashpod).
var crashExecInFlight = map[string]bool{"status.written@3": true, "stop.signalled@1": true}

const crashpodGrace = 5 * time.Second

// crashStops are the points where the manager had begun the pod's stop (its containers still
// there): adopted, the stop is finished, never undone.
var crashStops = map[string]bool{
	"stop.begin": true, "stop.prestop+200ms": true, "stop.signalled@1": true, "task.deleted@2": true,
}

// adoptAfterCrash adopts the crashed manager's pod (its record rec) with rt and checks what
// adoption resumed. At a crashStops point the stop is finished: every container ends
// terminated, none restarted. At a crashRunsOn point the pod runs on: phase Running, every container that
// was running is the same containerd container, b's restart count is at least the recorded
// one, and supervision is back (b, killed, is restarted). A pod whose start was cut is Failed
// with StartInterrupted. The caller removes it.
func adoptAfterCrash(ctx context.Context, t *testing.T, rt *podlife.Runtime, rec podlife.PodRecord, point string) {
	t.Helper()
	pod, err := rt.Adopt(ctx, crashpod.Spec(rec.Name, testImage))
	if err != nil {
		t.Fatalf("Adopt after %s: %v", point, err)
	}
	st := pod.Status()
	if testing.Verbose() {
		t.Logf("adopted after %s: phase %s reason %q", point, st.Phase, st.Reason)
	}
	if crashStops[point] {
		end, err := pod.Wait(ctx)
		if err != nil {
			t.Fatalf("adopted after %s: the stop never ended: %v", point, err)
		}
		for _, c := range end.ContainerStatuses {
			if c.State.Terminated == nil {
				t.Errorf("adopted after %s: %s not terminated after the stop: %+v", point, c.Name, c.State)
			}
			if was := crashStatus(rec.Status, c.Name).RestartCount; c.RestartCount != was {
				t.Errorf("adopted after %s: %s restarted during the stop (restartCount %d, was %d)", point, c.Name, c.RestartCount, was)
			}
		}
		if !slices.ContainsFunc(pod.Events(), func(e podlife.Event) bool {
			return e.Reason == reasons.Adopted && strings.Contains(e.Message, "to finish the stop")
		}) {
			t.Errorf("adopted after %s: no Adopted event saying the stop is finished: %v", point, pod.Events())
		}
		return
	}
	if !crashRunsOn[point] {
		if st.Phase == podlife.PhaseRunning && st.Reason == "" {
			return // a start that had got far enough runs on too
		}
		if st.Phase != podlife.PhaseFailed && st.Phase != podlife.PhaseSucceeded && st.Phase != podlife.PhasePending {
			t.Fatalf("adopted after %s: phase %s, reason %q", point, st.Phase, st.Reason)
		}
		return
	}
	if st.Phase != podlife.PhaseRunning {
		t.Fatalf("adopted after %s: phase %s (reason %q), want Running", point, st.Phase, st.Reason)
	}
	before := map[string]podlife.ContainerStatus{}
	for _, c := range rec.Status.ContainerStatuses {
		before[c.Name] = c
	}
	for _, c := range st.ContainerStatuses {
		b := before[c.Name]
		if b.State.Running != nil && c.State.Running != nil && b.ContainerID != c.ContainerID {
			t.Errorf("adopted after %s: %s is %s, was %s: a running container was replaced", point, c.Name, c.ContainerID, b.ContainerID)
		}
		if c.RestartCount < b.RestartCount {
			t.Errorf("adopted after %s: %s restartCount %d, was %d", point, c.Name, c.RestartCount, b.RestartCount)
		}
	}
	// Supervision resumed: b, running, is killed and restarted by the adopter. Right after the
	// adoption b may be exiting still (killed at restart.backoff-over, its old process had
	// exited): a kill that finds no process waits for b's next instance.
	b, err := pod.Container("b")
	if err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		running, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return crashStatus(s, "b").State.Running != nil })
		if err != nil {
			t.Fatalf("adopted after %s: b never ran: %v", point, err)
		}
		n := crashStatus(running, "b").RestartCount
		err = b.Signal(ctx, syscall.SIGKILL)
		if errors.Is(err, podlife.ErrNotFound) && try < 3 {
			if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return crashStatus(s, "b").RestartCount > n }); err != nil {
				t.Fatalf("adopted after %s: b neither running nor restarted: %v", point, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("adopted after %s: kill b: %v", point, err)
		}
		if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			c := crashStatus(s, "b")
			return c.RestartCount > n && c.State.Running != nil
		}); err != nil {
			t.Fatalf("adopted after %s: b not restarted after a kill (restartCount was %d): %v", point, n, err)
		}
		return
	}
}

// crashStatus is the status of the container of that name.
func crashStatus(s podlife.PodStatus, name string) podlife.ContainerStatus {
	for _, c := range s.ContainerStatuses {
		if c.Name == name {
			return c
		}
	}
	return podlife.ContainerStatus{}
}
