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
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/internal/crashpod"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// poolCrashPoint is a crash point of the warm pool: where the managing process (crashmgr in
// pool mode) is killed, and what the kill leaves.
type poolCrashPoint struct {
	point string
	take  bool // the point is in Run's take: the manager prewarms, then runs the pod
	// plain, gate: the point is run without the exec gate, with it (Config.ExecGate)
	plain, gate bool
	// recorded: the kill leaves a pod record (pod.json): the pod is adopted, not collected
	recorded bool
}

// poolCrashPoints are the warm pool's crash points, in the order a member's life reaches them
// (crashpod.PoolSpec: "a" then "b", no hook). A member killed while being made is collected by
// the next New; a pod killed mid-take before its record is a half-created pod's directory (or
// still a member), collected; from its record on it is the user's pod, adopted.
var poolCrashPoints = []poolCrashPoint{
	{point: "pool.mkdir", plain: true},                // the member's directory, no lock, no record
	{point: "pool.record", plain: true},               // its record written, flocked; nothing made
	{point: "pool.sandbox", plain: true},              // lease, namespaces pinned, cgroup; no CNI ADD
	{point: "pool.attached", plain: true, gate: true}, // CNI ADD recorded, containers being made
	{point: "pool.gate-waits@1", gate: true},          // a's (or b's) gate waits, the other's being made
	// 100 ms after the second container's containerd container: mostly in the middle of its task
	// create, the first's task created (or its gate waiting), which the kill cuts: the shim may
	// keep a task containerd does not know (on a fast host, later in the making, or in Close).
	{point: "run.container-created@2+100ms", plain: true, gate: true},
	{point: "pool.created", plain: true, gate: true},                              // every container created (or its gate waiting)
	{point: "pool.ready", plain: true, gate: true},                                // the member's record says ready
	{point: "take.locked", take: true, plain: true, gate: true},                   // checked, the pods' lock held: still a member
	{point: "take.renamed", take: true, plain: true, gate: true},                  // pods/<name> without pod.json, no link back
	{point: "take.registered", take: true, plain: true, gate: true},               // registered, a link back; no pod.json
	{point: "take.record", take: true, plain: true, gate: true, recorded: true},   // pod.json in place, unsynced
	{point: "take.starting", take: true, plain: true, gate: true, recorded: true}, // before the first start
	{point: "take.gate-release@1", take: true, gate: true, recorded: true},        // before a's release
	{point: "take.gate-released@1", take: true, gate: true, recorded: true},       // a released, b in its gate
}

// The warm pool's managing process is SIGKILLed at each of its crash points (poolCrashPoints),
// with and without the exec gate where the point is on both paths; a new Runtime on the state
// dir then finds:
//
//   - a member killed while being made (pool.mkdir, pool.record, pool.sandbox, pool.attached,
//     pool.gate-waits@1, run.container-created@2+100ms, pool.created, pool.ready): collected by
//     New's startup garbage collection, nothing left (no member listed, an empty pool
//     directory, no container; the harness's leak check: netns, veths, IPAM, iptables, mounts,
//     containerd objects, shims, loggers, cgroups and the processes in them, gates included);
//   - a pod killed mid-take before its record (take.locked, take.renamed, take.registered):
//     still a member, or a half-created pod's directory, collected whole: no pod, no member;
//   - a pod killed mid-take from its record on (take.record, take.starting, and with the gate
//     take.gate-release@1, take.gate-released@1): the user's pod, adopted as a start cut
//     (Failed, StartInterrupted, no container restarted), then removed whole.
//
// Either way no exec gate FIFO is left, and the name is free again. `make crash-test` runs it
// with TestCrashPoints.
func TestPoolCrashPoints(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	bin := crashManager(t)
	for _, pc := range poolCrashPoints {
		for _, gated := range []bool{false, true} {
			if gated && !pc.gate || !gated && !pc.plain {
				continue
			}
			name := pc.point
			if gated {
				name = "gate/" + name
			}
			t.Run(name, func(t *testing.T) { poolCrashAt(t, bin, pc, gated) })
		}
	}
}

// poolCrashAt runs crashmgr in pool mode until it is killed at pc, then checks what a new
// Runtime makes of what it left (see TestPoolCrashPoints).
func poolCrashAt(t *testing.T, bin string, pc poolCrashPoint, gated bool) {
	var opts []harnessOption
	gate := ""
	if gated {
		gate = execGateBinary(t)
		opts = append(opts, func(c *podlife.Config) { c.ExecGate = gate })
	}
	var stderr, stdout bytes.Buffer
	t.Cleanup(func() { // after the harness's leak check (registered before it)
		if t.Failed() {
			t.Logf("manager's log:\n%s", stderr.String())
		}
	})
	h := newHarness(t, opts...)
	const name = "crash"
	cfg, _ := json.Marshal(map[string]any{
		"address": env.daemon.Address(), "namespace": h.ns, "stateDir": h.stateDir,
		"bridge": h.bridge, "logger": env.logger, "image": testImage, "pod": name,
		"mode": "pool", "execGate": gate, "take": pc.take,
	})
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "PODLIFE_CRASHMGR="+string(cfg), failpoint.Env+"="+pc.point)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ws syscall.WaitStatus
	if cmd.ProcessState != nil {
		ws, _ = cmd.ProcessState.Sys().(syscall.WaitStatus)
	}
	at, _, _ := strings.Cut(strings.SplitN(pc.point, "+", 2)[0], "@")
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL || !strings.Contains(stderr.String(), failpoint.Marker+at+" hit") {
		t.Fatalf("the manager was not killed at %s: %v\nstdout:\n%s\nstderr:\n%s", pc.point, err, stdout.String(), stderr.String())
	}

	// What the kill left that only the startup garbage collection can find.
	pool, pods := filepath.Join(h.stateDir, "pool"), filepath.Join(h.stateDir, "pods")
	if !pc.take {
		if entries, _ := os.ReadDir(pool); len(entries) != 1 {
			t.Fatalf("after %s: %d entries in the pool directory, want the member's", pc.point, len(entries))
		}
	}
	if pc.point == "take.renamed" {
		if _, err := os.Stat(filepath.Join(pods, name, "pod.json")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("after %s: pod.json: %v, want none", pc.point, err)
		}
	}
	rt := h.anotherWith(t, func(c *podlife.Config) { c.ExecGate = gate }) // its New collects
	if ms, err := rt.ListPoolMembers(ctx); err != nil || len(ms) != 0 {
		t.Errorf("after %s: pool members %+v, %v; want none (the member's process died)", pc.point, ms, err)
	}
	rec, err := rt.LookupPod(ctx, name)
	switch {
	case errors.Is(err, podlife.ErrNotFound):
		if pc.recorded {
			t.Fatalf("after %s: no pod %s, want its record (the pod is the user's)", pc.point, name)
		}
		// Nothing of the member is left in containerd: the collection removed it whole.
		if ctrs, err := env.client.Containers(namespaces.WithNamespace(ctx, h.ns)); err != nil || len(ctrs) != 0 {
			t.Errorf("after %s: %d containers left after the collection (%v), want none", pc.point, len(ctrs), err)
		}
	case err != nil:
		t.Fatalf("LookupPod: %v", err)
	default:
		if !pc.recorded {
			t.Fatalf("after %s: pod %s has a record (%+v), want none", pc.point, name, rec)
		}
		defer func() {
			if t.Failed() {
				_ = removePod(ctx, rt, name, podlife.WithGracePeriod(0))
			}
		}()
		adoptPoolCrash(ctx, t, rt, name, pc.point)
		if err := removePod(ctx, rt, name, podlife.WithGracePeriod(0)); err != nil {
			t.Fatalf("Pod.Remove: %v", err)
		}
	}
	// The name is free again, and nothing is left of the member.
	if _, err := rt.LookupPod(ctx, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("after %s: LookupPod after the removal: %v, want ErrNotFound", pc.point, err)
	}
	if _, err := os.Stat(filepath.Join(pods, name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after %s: the pod's directory is still there (the name is not free): %v", pc.point, err)
	}
	if entries, _ := os.ReadDir(pool); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name()+" ("+e.Type().String()+")")
		}
		t.Errorf("after %s: the pool directory keeps %v", pc.point, names)
	}
	if files := gateFiles(h.stateDir); len(files) > 0 {
		t.Errorf("after %s: exec gate FIFOs left: %v", pc.point, files)
	}
	if err := rt.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// adoptPoolCrash adopts the pod a take left recorded and checks that its start, cut by the
// kill, is not resumed: Failed with StartInterrupted, no container restarted. (Every point with
// a record is before b's start: b never ran.)
func adoptPoolCrash(ctx context.Context, t *testing.T, rt *podlife.Runtime, name, point string) {
	t.Helper()
	pod, err := rt.Adopt(ctx, crashpod.PoolSpec(name, testImage))
	if err != nil {
		t.Fatalf("Adopt after %s: %v", point, err)
	}
	wctx, cancel := context.WithTimeout(ctx, budget(30*time.Second))
	defer cancel()
	st, err := pod.Wait(wctx)
	if err != nil {
		t.Fatalf("adopted after %s: the pod never ended: %v (status %+v)", point, err, pod.Status())
	}
	if st.Phase != podlife.PhaseFailed || st.Reason != reasons.StartInterrupted {
		t.Errorf("adopted after %s: %s %s %q, want Failed StartInterrupted", point, st.Phase, st.Reason, st.Message)
	}
	for _, c := range st.ContainerStatuses {
		if c.RestartCount != 0 || c.State.Running != nil {
			t.Errorf("adopted after %s: %s restarted or running: %+v", point, c.Name, c)
		}
	}
}
