package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// The exec gate (Config.ExecGate) under attack: a manager killed with gated members, a gate
// killed before the take, a containerd restart while members wait, a stop before a gated
// container's release, security variants, and podlife's own file descriptors of the FIFOs.

// gateHarness is a harness whose Runtime gates its warm pool members' containers.
func gateHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	gate := execGateBinary(t)
	h := newHarness(t, append([]harnessOption{func(c *podlife.Config) { c.ExecGate = gate }}, opts...)...)
	closeFirst(t, h)
	return h
}

// closeFirst removes the harness's pods and closes its Runtime (which removes its pool
// members) before the harness's leak checks, which a test that fails half-way would otherwise
// fail on its members too.
func closeFirst(t *testing.T, h *harness) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
		defer cancel()
		for _, p := range h.rt.Pods() {
			if err := p.Remove(ctx); err != nil {
				t.Errorf("remove pod %s: %v", p.Name(), err)
			}
		}
		_ = h.rt.Close()
	})
}

// gatedTask is one containerd task of a harness's namespace.
type gatedTask struct {
	id, uid string
	pid     uint32
	task    client.Task
}

// nsTasks returns the tasks of the namespace's containers (of pod uid, or all if uid == ""),
// pauses left out, on the client c (env.client if nil).
func nsTasks(t *testing.T, c *client.Client, ns, uid string) []gatedTask {
	t.Helper()
	if c == nil {
		c = env.client
	}
	ctx := namespaces.WithNamespace(context.Background(), ns)
	var filters []string
	if uid != "" {
		filters = append(filters, `labels."podlife.io/pod-uid"==`+uid)
	}
	ctrs, err := c.Containers(ctx, filters...)
	if err != nil {
		t.Fatal(err)
	}
	var out []gatedTask
	for _, ctr := range ctrs {
		l, _ := ctr.Labels(ctx)
		if l[podlife.LabelKind] == podlife.LabelKindPause {
			continue
		}
		task, err := ctr.Task(ctx, nil)
		if err != nil {
			continue
		}
		out = append(out, gatedTask{id: ctr.ID(), uid: l[podlife.LabelPodUID], pid: task.Pid(), task: task})
	}
	return out
}

// inGate reports whether the process pid runs the exec gate (waits in it).
func inGate(pid uint32) bool {
	b, err := os.ReadFile(filepath.Join("/proc", itoa(int(pid)), "cmdline"))
	return err == nil && strings.HasPrefix(string(b), execgate.BinaryPath+"\x00--\x00")
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// waitExit waits (up to a budget) until the task's process has exited, and returns its code.
func waitExit(t *testing.T, ns string, tk gatedTask) uint32 {
	t.Helper()
	ctx := namespaces.WithNamespace(context.Background(), ns)
	deadline := time.Now().Add(budget(30 * time.Second))
	for {
		st, err := tk.task.Status(ctx)
		if err == nil && st.Status == client.Stopped {
			return st.ExitStatus
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: still %+v (%v) 30 s on", tk.id, st, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gateFDs counts this process's file descriptors open on exec gate FIFOs.
func gateFDs(t *testing.T) int {
	t.Helper()
	return len(openFiles(t, func(target string) bool { return strings.Contains(filepath.Base(target), "execgate-") }))
}

// gateFiles lists the exec gate FIFOs left under the state dir (pods and pool members).
func gateFiles(stateDir string) []string {
	var out []string
	for _, pattern := range []string{"pods/*/execgate-*", "pool/*/execgate-*"} {
		m, _ := filepath.Glob(filepath.Join(stateDir, pattern))
		out = append(out, m...)
	}
	return out
}

// A process keeping gated members is SIGKILLed: every member's gate sees podlife's end of its
// FIFO close and exits with ExitManagerGone (its command never runs), and the next Runtime's
// startup garbage collection removes the members (the harness's leak checks find nothing).
func TestExecGateManagerKilled(t *testing.T) {
	marks := t.TempDir()
	h := gateHarness(t)
	cmd := startManager(t, h, "pool", marks)
	tasks := nsTasks(t, nil, h.ns, "")
	if len(tasks) != 4 {
		t.Fatalf("%d tasks of the child's 2 members, want 4", len(tasks))
	}
	for _, tk := range tasks {
		if !inGate(tk.pid) {
			t.Errorf("task %s (PID %d) is not waiting in the gate", tk.id, tk.pid)
		}
	}
	kill(t, cmd)
	for _, tk := range tasks {
		if code := waitExit(t, h.ns, tk); code != execgate.ExitManagerGone {
			t.Errorf("task %s: the gate exited with code %d, want %d (ExitManagerGone)", tk.id, code, execgate.ExitManagerGone)
		}
	}
	if lines := readStamped(t, filepath.Join(marks, "tmpl.log")); len(lines) > 0 {
		t.Errorf("a member's command ran after its manager died: %+v", lines)
	}
	if entries, _ := os.ReadDir(marks); len(entries) > 0 {
		t.Errorf("a member's command ran after its manager died: %d files in marks", len(entries))
	}
	rt := h.another(t) // New collects
	if members, err := rt.ListPoolMembers(context.Background()); err != nil || len(members) != 0 {
		t.Fatalf("after the startup collection: %+v, %v; want none", members, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after the collection: %d entries left", len(entries))
	}
	if ctrs, err := env.client.Containers(namespaces.WithNamespace(context.Background(), h.ns)); err != nil || len(ctrs) != 0 {
		t.Errorf("containers left: %d, %v", len(ctrs), err)
	}
}

// A pod taken from a gated member whose start is cut by its manager's death (the first
// container's postStart hangs; the second is still in its gate): the adopter fails it with
// StartInterrupted naming the second container, which never runs, as for a cold start cut the
// same way (TestAdoptStartCut... "startcut"); the member the refill made meanwhile is collected.
func TestExecGateStartCut(t *testing.T) {
	marks := t.TempDir()
	h := gateHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	spec := crashSpec("startcut", marks)
	removeAtEnd(t, h, spec.Name)
	mgr := startManager(t, h, "startcut", marks)
	waitPath(t, filepath.Join(marks, "hooked"))
	rec := waitRecord(t, ctx, h.rt, spec.Name, "recorded", func(r podlife.PodRecord) bool { return true })
	var second gatedTask
	for _, tk := range nsTasks(t, nil, h.ns, rec.UID) {
		if inGate(tk.pid) {
			second = tk
		}
	}
	if second.task == nil {
		t.Fatalf("no container of the taken pod %s waits in its gate", rec.UID)
	}
	kill(t, mgr)
	if code := waitExit(t, h.ns, second); code != execgate.ExitManagerGone {
		t.Errorf("the second container's gate exited with %d, want %d", code, execgate.ExitManagerGone)
	}
	waitRecord(t, ctx, h.rt, spec.Name, "unmanaged", func(r podlife.PodRecord) bool { return !r.Managed() })
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	wctx, wcancel := context.WithTimeout(ctx, budget(30*time.Second))
	st, err := pod.Wait(wctx)
	wcancel()
	if err != nil {
		t.Errorf("Wait: %v (status %+v)", err, st)
	}
	if st.Phase != podlife.PhaseFailed || st.Reason != reasons.StartInterrupted || !strings.Contains(st.Message, `container "second" was not started`) {
		t.Errorf("status %s %s %q, want Failed StartInterrupted naming the container not started", st.Phase, st.Reason, st.Message)
	}
	for _, cs := range st.ContainerStatuses {
		if cs.Name == "second" && cs.RestartCount != 0 {
			t.Errorf("second: restart count %d, want 0 (it never ran)", cs.RestartCount)
		}
	}
	if _, err := os.Stat(filepath.Join(marks, "second")); err == nil {
		t.Errorf("the container not started by the dead manager was started")
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	h.another(t) // collects the member the child's refill made
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after the collection: %d entries left", len(entries))
	}
}

// A pod taken from a gated member, all its containers released, whose manager is SIGKILLed:
// the adopter follows the running command (no restart, not taken for a start cut: the FIFO
// went at the release), and an exit while no manager ran is the command's, restarted per the
// policy with its real code.
func TestExecGateAdoptStarted(t *testing.T) {
	marks := t.TempDir()
	h := gateHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	spec := crashSpec("exit", marks)
	removeAtEnd(t, h, spec.Name)
	mgr := startManager(t, h, "exit", marks) // Prewarm 1, then the pod from the member
	rec := waitRecord(t, ctx, h.rt, spec.Name, "running", func(r podlife.PodRecord) bool { return every(r.Status.ContainerStatuses, runningReady) })
	if files, _ := filepath.Glob(filepath.Join(h.stateDir, "pods", spec.Name, "execgate-*")); len(files) > 0 {
		t.Errorf("the started pod's directory keeps its FIFOs %v", files)
	}
	kill(t, mgr)
	waitRecord(t, ctx, h.rt, spec.Name, "unmanaged", func(r podlife.PodRecord) bool { return !r.Managed() })
	tasks := nsTasks(t, nil, h.ns, rec.UID)
	if len(tasks) != 1 || inGate(tasks[0].pid) {
		t.Fatalf("the pod's tasks %+v, want its command running", tasks)
	}
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	if st := pod.Status(); st.Phase != podlife.PhaseRunning || st.ContainerStatuses[0].State.Running == nil || st.ContainerStatuses[0].RestartCount != 0 {
		t.Fatalf("adopted: %s %s %q, container %+v; want Running, the same instance", st.Phase, st.Reason, st.Message, st.ContainerStatuses[0])
	}
	if err := os.WriteFile(filepath.Join(marks, "exit"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		c := s.ContainerStatuses[0]
		return c.RestartCount >= 1 && c.State.Running != nil
	})
	if err != nil {
		t.Fatalf("no restart: %v (status %+v)", err, pod.Status())
	}
	if last := st.ContainerStatuses[0].LastState.Terminated; last == nil || last.ExitCode != 3 {
		t.Errorf("last state %+v, want terminated with code 3", st.ContainerStatuses[0].LastState)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	h.another(t) // collects the member the child's refill made
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after the collection: %d entries left", len(entries))
	}
}

// A member's gate SIGKILLed before the take (the gate is the created process the pool
// watches): the member leaves the pool at once and is never handed out; the next Run gets
// another member, or starts cold, and runs.
func TestExecGateKilledBeforeTake(t *testing.T) {
	h := gateHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	marks := t.TempDir()
	if err := h.rt.Prewarm(ctx, poolSpec(marks), 2); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	members, err := h.rt.ListPoolMembers(ctx)
	if err != nil || len(members) != 2 {
		t.Fatalf("ListPoolMembers = %+v, %v", members, err)
	}
	killed := members[0].UID // the oldest: the next take's
	tasks := nsTasks(t, nil, h.ns, killed)
	if len(tasks) != 2 || !inGate(tasks[1].pid) {
		t.Fatalf("the member's tasks: %+v", tasks)
	}
	if err := syscall.Kill(int(tasks[1].pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitMemberGone(t, ctx, h.rt, killed, "whose gate was killed")
	s := poolSpec(marks)
	s.Name = "after-kill"
	pod, err := h.rt.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if pod.UID() == killed {
		t.Errorf("the member whose gate was killed was handed out")
	}
	waitStamped(t, filepath.Join(marks, "after-kill.log"), "first", "poststart", "second")
	if st := pod.Status(); st.Phase != podlife.PhaseRunning {
		t.Errorf("phase %s, want Running", st.Phase)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Prewarm(ctx, poolSpec(marks), 0); err != nil {
		t.Fatal(err)
	}
	if files := gateFiles(h.stateDir); len(files) > 0 {
		t.Errorf("exec gate FIFOs left: %v", files)
	}
}

// stopCutSpec is a 2-container pod whose first container's postStart hangs (it touches
// /marks/hooked first), so that the second is never started (or released) before the Stop.
func stopCutSpec(name, marks string) podlife.PodSpec {
	mounts := []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}}
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(2 * time.Second),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{
			{Name: "first", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, VolumeMounts: mounts,
				PostStart: hook.Exec("/bin/sh", "-c", "touch /marks/hooked-$(hostname); sleep 600")},
			{Name: "second", Image: testImage, Command: []string{"/bin/sh", "-c", "touch /marks/second-$(hostname); " + loopForever}, VolumeMounts: mounts},
		},
	}
}

// Stop (or Remove) of a pod while its second container waits to be started (the first's
// postStart hangs): it returns (no hang), the second container never runs, its status is the
// same as for a cold start cut the same way, and nothing is left (the harness's checks). With
// the exec gate, the second container's process is a gate whose release never comes.
func TestExecGateStopBeforeRelease(t *testing.T) {
	type result struct {
		phase  podlife.Phase
		second string
		exec   string // an exec in the second container before the stop
	}
	results := map[string]result{}
	for _, gated := range []bool{false, true} {
		for _, how := range []string{"stop", "remove"} {
			name := map[bool]string{false: "cold", true: "gated"}[gated] + "-" + how
			t.Run(name, func(t *testing.T) {
				var opts []harnessOption
				if gated {
					gate := execGateBinary(t)
					opts = append(opts, func(c *podlife.Config) { c.ExecGate = gate })
				}
				h := newHarness(t, opts...)
				ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
				defer cancel()
				marks := t.TempDir()
				if gated {
					if err := h.rt.Prewarm(ctx, stopCutSpec("tmpl", marks), 1); err != nil {
						t.Fatalf("Prewarm: %v", err)
					}
				}
				pod, err := h.rt.Start(ctx, stopCutSpec("cut", marks))
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				waitPath(t, filepath.Join(marks, "hooked-cut"))
				if gated {
					if !fromPool(pod) {
						t.Fatalf("not taken from the pool: %+v", pod.Events())
					}
					n := 0
					for _, tk := range nsTasks(t, nil, h.ns, pod.UID()) {
						if inGate(tk.pid) {
							n++
						}
					}
					if n != 1 {
						t.Fatalf("%d of the pod's processes wait in the gate, want 1 (the second)", n)
					}
				}
				var execResult string
				if how == "stop" {
					ectx, ecancel := context.WithTimeout(ctx, budget(10*time.Second))
					res, err := execOutput(ectx, pod, "second", []string{"/bin/sh", "-c", "echo exec ran"})
					ecancel()
					if err != nil {
						execResult = "error"
					} else {
						execResult = "code " + itoa(res.ExitCode) + " " + strings.TrimSpace(string(res.Output))
					}
					t.Logf("exec in the second container before its start: %q, %v", execResult, err)
				}
				t0 := time.Now()
				sctx, scancel := context.WithTimeout(ctx, budget(30*time.Second))
				defer scancel()
				if how == "stop" {
					if err := pod.Stop(sctx); err != nil {
						t.Fatalf("Stop: %v (after %v)", err, time.Since(t0))
					}
					st := pod.Status()
					var second string
					for _, cs := range st.ContainerStatuses {
						if cs.Name == "second" {
							second = stateOf(cs)
						}
					}
					t.Logf("stopped in %v: phase %s, second %s", time.Since(t0).Round(time.Millisecond), st.Phase, second)
					results[name] = result{st.Phase, second, execResult}
				}
				if err := pod.Remove(sctx); err != nil {
					t.Fatalf("Remove: %v (after %v)", err, time.Since(t0))
				}
				if _, err := os.Stat(filepath.Join(marks, "second-cut")); err == nil {
					t.Errorf("the second container ran")
				}
				if gated {
					if err := h.rt.Prewarm(ctx, stopCutSpec("tmpl", marks), 0); err != nil {
						t.Fatal(err)
					}
					if n := gateFDs(t); n != 0 {
						t.Errorf("%d file descriptors still open on gate FIFOs", n)
					}
				}
			})
		}
	}
	if c, g := results["cold-stop"], results["gated-stop"]; c != g {
		t.Errorf("after Stop: cold %+v, gated %+v; want the same", c, g)
	}
}

// stateOf is a container status's state, with its exit code if terminated.
func stateOf(cs podlife.ContainerStatus) string {
	switch s := cs.State; {
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		return "terminated " + itoa(int(s.Terminated.ExitCode)) + " " + string(s.Terminated.Reason)
	case s.Waiting != nil:
		return "waiting " + string(s.Waiting.Reason)
	}
	return "none"
}

// identityScript prints what a container's process inherits (user, capabilities, signal mask
// and dispositions, no_new_privs, seccomp, limits, open files, whether / is writable), then
// endMarker, and loops.
const identityScript = `echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"; ` +
	`grep -E '^(Cap|Sig(Blk|Ign)|NoNewPrivs|Seccomp)' /proc/1/status; cat /proc/1/limits; ` +
	`ls /proc/1/fd > /dev/shm/fds; echo fds $(cat /dev/shm/fds); echo cwd $(readlink /proc/1/cwd); ` + // no pipe of the shell's open while ls runs

	`if touch /probe 2>/dev/null; then echo rootfs=rw; else echo rootfs=ro; fi; ` +
	`echo ` + endMarker + `; ` + loopForever

// A pod started from a gated member runs its command with every security setting of its spec,
// and its process is the same as a cold start's (same user, capabilities, signal state,
// no_new_privs, seccomp, limits, open files): readOnlyRootFilesystem, runAsNonRoot with
// runAsUser, all capabilities dropped, allowPrivilegeEscalation false with a non-root user, a
// small memory limit, a small CPU limit.
// (A pod's container has no TTY: only ephemeral containers, which are never gated, do.)
func TestExecGateSecurityVariants(t *testing.T) {
	h := gateHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(4*time.Minute))
	defer cancel()
	variants := []struct {
		name string
		sc   *podlife.SecurityContext
		want []string
		res  podlife.Resources
	}{
		{"plain", nil, []string{"uid=0 ", "rootfs=rw"}, podlife.Resources{}},
		{"readonly", &podlife.SecurityContext{ReadOnlyRootFilesystem: true}, []string{"uid=0 ", "rootfs=ro"}, podlife.Resources{}},
		{"nonroot", &podlife.SecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(1000)), RunAsGroup: ptr(int64(1000))},
			[]string{"uid=1000 gid=1000", "CapEff:\t0000000000000000"}, podlife.Resources{}},
		{"nocaps", &podlife.SecurityContext{Capabilities: &podlife.Capabilities{Drop: []string{"ALL"}}},
			[]string{"uid=0 ", "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000"}, podlife.Resources{}},
		{"noescalation", &podlife.SecurityContext{AllowPrivilegeEscalation: ptr(false), RunAsUser: ptr(int64(65534))},
			[]string{"uid=65534 ", "NoNewPrivs:\t1"}, podlife.Resources{}},
		// The gate (a Go program) runs within the container's limits before its command.
		{"smallmemory", nil, []string{"uid=0 "}, podlife.Resources{MemoryLimit: 6 << 20}},
		{"smallcpu", nil, []string{"uid=0 "}, podlife.Resources{CPULimit: 10}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			mk := func(name string) podlife.PodSpec {
				return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Duration(0)),
					Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, SecurityContext: v.sc, Resources: v.res,
						Command: []string{"/bin/sh", "-c", identityScript}}}}
			}
			out := map[bool]string{}
			for _, warm := range []bool{false, true} {
				name := v.name + map[bool]string{false: "-cold", true: "-warm"}[warm]
				if warm {
					if err := h.rt.Prewarm(ctx, mk("tmpl"), 1); err != nil {
						t.Fatalf("Prewarm: %v", err)
					}
				}
				pod, err := h.rt.Run(ctx, mk(name))
				if err != nil {
					t.Fatalf("Run %s: %v", name, err)
				}
				if fromPool(pod) != warm {
					t.Fatalf("%s: from the pool %v, want %v", name, fromPool(pod), warm)
				}
				c, err := pod.Container("app")
				if err != nil {
					t.Fatal(err)
				}
				text := logText(t, c)
				if !strings.Contains(text, endMarker) {
					t.Fatalf("%s: no end marker in the log:\n%s", name, text)
				}
				out[warm] = text
				for _, w := range v.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s: no %q in its output:\n%s", name, w, text)
					}
				}
				if strings.Contains(text, "podlife-execgate") {
					t.Errorf("%s: the gate wrote to the container's output:\n%s", name, text)
				}
				if err := pod.Remove(ctx); err != nil {
					t.Fatal(err)
				}
				if warm {
					if err := h.rt.Prewarm(ctx, mk("tmpl"), 0); err != nil {
						t.Fatal(err)
					}
				}
			}
			if out[false] != out[true] {
				t.Errorf("the gated process differs from the cold one:\ncold:\n%s\ngated:\n%s", out[false], out[true])
			}
		})
	}
}

// Several takes and removals of gated members: podlife holds a FIFO's write end only while its
// member waits (2 for a ready 2-container member, none for a started pod), and leaves no FIFO
// file once the pods are removed and the pool dropped.
func TestExecGateFDs(t *testing.T) {
	h := gateHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	marks := t.TempDir()
	before := gateFDs(t)
	if before != 0 {
		t.Fatalf("%d gate FIFO descriptors before any member", before)
	}
	if err := h.rt.Prewarm(ctx, poolSpec(marks), 1); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	for i := range 4 {
		waitPool(t, h.rt, "refilled", func(s podlife.PoolStat) bool { return s.Ready == 1 && s.Making == 0 })
		if n := gateFDs(t); n != 2 {
			t.Errorf("cycle %d: %d gate FIFO descriptors with one ready member, want 2", i, n)
		}
		s := poolSpec(marks)
		s.Name = "fd-" + itoa(i)
		pod, err := h.rt.Run(ctx, s)
		if err != nil || !fromPool(pod) {
			t.Fatalf("Run %s: %v (from the pool: %v)", s.Name, err, err == nil && fromPool(pod))
		}
		waitStamped(t, filepath.Join(marks, s.Name+".log"), "first", "poststart", "second")
		if files, _ := filepath.Glob(filepath.Join(h.stateDir, "pods", s.Name, "execgate-*")); len(files) > 0 {
			t.Errorf("cycle %d: the started pod's directory keeps its FIFOs %v", i, files)
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.rt.Prewarm(ctx, poolSpec(marks), 0); err != nil {
		t.Fatal(err)
	}
	if n := gateFDs(t); n != 0 {
		t.Errorf("%d gate FIFO descriptors left after the pool was dropped", n)
	}
	if files := gateFiles(h.stateDir); len(files) > 0 {
		t.Errorf("exec gate FIFOs left: %v", files)
	}
}

// containerd is SIGKILLed and started again while gated members wait (their shims and gates
// live on, and podlife keeps its ends of the FIFOs): a Run afterwards starts, from a member or
// cold, runs its containers in order; the pool is refilled and the next Run is warm; nothing
// is left (the test's containerd is checked).
// Without the gate too: a member's exit watcher takes containerd's going away for its created
// processes' exit, so the members are removed and replaced either way (logged as "a created
// process is gone").
func TestExecGateContainerdRestart(t *testing.T) {
	t.Run("created", func(t *testing.T) { testExecGateContainerdRestart(t, "") })
	t.Run("exec gate", func(t *testing.T) { testExecGateContainerdRestart(t, execGateBinary(t)) })
}

func testExecGateContainerdRestart(t *testing.T, gate string) {
	own, h := newOwnContainerd(t, func(c *podlife.Config) { c.ExecGate = gate })
	closeFirst(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	marks := t.TempDir()
	if err := h.rt.Prewarm(ctx, poolSpec(marks), 2); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	own.kill()
	time.Sleep(500 * time.Millisecond)
	own.start()
	for _, name := range []string{"after-a", "after-b", "after-c"} {
		s := poolSpec(marks)
		s.Name = name
		// Until podlife has reconnected, Run fails with ErrUnavailable.
		deadline := time.Now().Add(budget(30 * time.Second))
		var pod *podlife.Pod
		var err error
		for {
			pod, err = h.rt.Run(ctx, s)
			if !errors.Is(err, podlife.ErrUnavailable) || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("Run %s: %v", name, err)
		}
		t.Logf("%s: from the pool %v", name, fromPool(pod))
		lines := waitStamped(t, filepath.Join(marks, name+".log"), "first", "poststart", "second")
		var order []string
		for _, l := range lines {
			order = append(order, l.who)
		}
		if got := strings.Join(order, ","); got != "first,poststart,second" {
			t.Errorf("%s: start order %s, want first,poststart,second", name, got)
		}
		if st := pod.Status(); st.Phase != podlife.PhaseRunning {
			t.Errorf("%s: phase %s, want Running", name, st.Phase)
		}
	}
	// The pool is made again on the containerd back: the next Run is a warm one.
	waitPool(t, h.rt, "refilled", func(s podlife.PoolStat) bool { return s.Ready == 2 })
	s := poolSpec(marks)
	s.Name = "after-d"
	if pod, err := h.rt.Run(ctx, s); err != nil || !fromPool(pod) {
		t.Errorf("Run after the refill: %v, from the pool %v", err, err == nil && fromPool(pod))
	}
	waitStamped(t, filepath.Join(marks, "after-d.log"), "first", "poststart", "second")
	for _, p := range h.rt.Pods() {
		if err := p.Remove(ctx); err != nil {
			t.Errorf("remove %s: %v", p.Name(), err)
		}
	}
	if err := h.rt.Prewarm(ctx, poolSpec(marks), 0); err != nil {
		t.Fatal(err)
	}
	if n := gateFDs(t); n != 0 {
		t.Errorf("%d gate FIFO descriptors left after the pool was dropped", n)
	}
}

// A command that is found and executable but cannot be executed (a script without "#!": the
// kernel's ENOEXEC) fails the pod's start from a gated member as from a cold start: the
// container ends with the same code (runc's init's 1), the pod (restartPolicy Never) is
// Failed, and the container's log has the same reason (runc's words).
func TestExecGateExecFormatError(t *testing.T) {
	h := gateHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "noshebang"), []byte("echo never\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Duration(0)), RestartPolicy: podlife.RestartNever,
			Volumes: []podlife.Volume{{Name: "bin", HostPath: &podlife.HostPathVolume{Path: bin, Type: podlife.HostPathDirectory}}},
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin2/noshebang"},
				VolumeMounts: []podlife.VolumeMount{{Name: "bin", MountPath: "/bin2"}}}}}
	}
	outcome := map[bool]string{}
	for _, warm := range []bool{false, true} {
		name := map[bool]string{false: "enoexec-cold", true: "enoexec-warm"}[warm]
		if warm {
			if err := h.rt.Prewarm(ctx, mk("tmpl"), 1); err != nil {
				t.Logf("Prewarm of a command that cannot be executed: %v", err)
			}
		}
		pod, runErr := h.rt.Run(ctx, mk(name))
		if pod == nil {
			t.Logf("%s: Run: %v", name, runErr)
			outcome[warm] = "run failed"
			continue
		}
		wctx, wcancel := context.WithTimeout(ctx, budget(30*time.Second))
		st, err := pod.WaitFor(wctx, func(s podlife.PodStatus) bool { return s.Phase == podlife.PhaseFailed })
		wcancel()
		if err != nil {
			t.Errorf("%s: not Failed: %v (%+v)", name, err, pod.Status())
		}
		cs := st.ContainerStatuses[0]
		var msg string
		if tm := cs.State.Terminated; tm != nil {
			msg = tm.Message
		}
		// The gate's own line reaches the log through the shim's logger, which may write it
		// after the exit was seen: wait for it (a bounded wait; the check below says if not).
		var log strings.Builder
		for deadline := time.Now().Add(budget(10 * time.Second)); ; {
			log.Reset()
			_ = pod.Logs(ctx, "app", podlife.LogOptions{}, &log)
			if strings.Contains(msg+log.String(), "exec format error") || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		outcome[warm] = stateOf(cs) + ", log " + log.String()
		t.Logf("%s: Run %v, from the pool %v, phase %s, app %s %q, log %q", name, runErr, fromPool(pod), st.Phase, stateOf(cs), msg, log.String())
		if !strings.Contains(msg+log.String(), "exec format error") {
			t.Errorf("%s: the reason (exec format error) is neither in the state nor in the log", name)
		}
		if strings.Contains(log.String(), "never") {
			t.Errorf("%s: the script ran", name)
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if warm {
			if err := h.rt.Prewarm(ctx, mk("tmpl"), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if outcome[false] != outcome[true] {
		t.Errorf("the container's end differs: cold %q, from a gated member %q", outcome[false], outcome[true])
	}
}
