package podlife_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

var execGateOnce struct {
	sync.Once
	bin string
	err error
}

// execGateBinary is the exec gate program (built once per test binary unless
// PODLIFE_TEST_EXECGATE names one).
func execGateBinary(t *testing.T) string {
	t.Helper()
	execGateOnce.Do(func() {
		execGateOnce.bin, execGateOnce.err = podlifetest.ExecGate(env.dir) // removed with the run's directory
	})
	if execGateOnce.err != nil {
		t.Fatalf("exec gate: %v", execGateOnce.err)
	}
	return execGateOnce.bin
}

// With Config.ExecGate, a member's containers wait in the gate (their tasks running, their
// commands not), and Run releases them in the start order: the first's postStart still blocks
// the second, each container's PID 1 is its own command (not the gate), a non-root container
// runs as its user, and the pod is started from the pool. A member whose command cannot be
// found is never made (Prewarm fails with the gate's reason); a member's gate whose FIFO closes
// without the start byte exits with ExitManagerGone.
func TestWarmPoolExecGate(t *testing.T) {
	gate := execGateBinary(t)
	h := newHarness(t, func(c *podlife.Config) { c.ExecGate = gate })
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	marks := t.TempDir()
	// The non-root container writes its marks.
	if err := os.Chmod(marks, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(marks, "gated.log"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(marks, "gated.log"), 0o666); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) podlife.PodSpec {
		s := poolSpec(marks)
		s.Name = name
		// Each container also records its PID 1's command line and its user.
		for i := range s.Containers {
			c := &s.Containers[i]
			c.Command[2] = `echo "$(tr '\0' ' ' < /proc/1/cmdline)|$(id -u)" > /marks/$(hostname)-` + c.Name + `.cmd; ` + c.Command[2]
		}
		s.Containers[1].SecurityContext = &podlife.SecurityContext{RunAsUser: ptr(int64(1000))}
		return s
	}
	if err := h.rt.Prewarm(ctx, mk("tmpl"), 1); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	// The member's processes are the gates, waiting.
	members, err := h.rt.ListPoolMembers(ctx)
	if err != nil || len(members) != 1 || !members[0].Ready {
		t.Fatalf("ListPoolMembers = %+v, %v", members, err)
	}
	if n := gatedProcesses(t, "/proc/1/cmdline)|$(id -u)"); n != 2 {
		t.Errorf("the member has %d processes waiting in the exec gate, want 2", n)
	}

	pod, err := h.rt.Run(ctx, mk("gated"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !fromPool(pod) {
		t.Fatalf("not started from the pool: %+v", pod.Events())
	}
	lines := waitStamped(t, filepath.Join(marks, "gated.log"), "first", "poststart", "second")
	var order []string
	for _, l := range lines {
		order = append(order, l.who)
		if f := strings.Fields(l.what); len(f) != 2 || f[0] != "gated" {
			t.Errorf("%s saw hostname %q, want gated", l.who, l.what)
		}
	}
	if got := strings.Join(order, ","); got != "first,poststart,second" {
		t.Errorf("start order %s, want first,poststart,second", got)
	}
	for _, c := range []struct{ name, uid string }{{"first", "0"}, {"second", "1000"}} {
		b, err := os.ReadFile(filepath.Join(marks, "gated-"+c.name+".cmd"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		line := strings.TrimSpace(string(b))
		i := strings.LastIndex(line, "|")
		cmd, uid := line[:max(i, 0)], line[i+1:]
		if !strings.HasPrefix(cmd, "/bin/sh -c ") || strings.Contains(cmd, execgate.BinaryPath) {
			t.Errorf("%s: PID 1 runs %q, want its command", c.name, cmd)
		}
		if uid != c.uid {
			t.Errorf("%s: runs as %q, want %s", c.name, uid, c.uid)
		}
	}
	if st := pod.Status(); st.Phase != podlife.PhaseRunning || len(st.ContainerStatuses) != 2 || st.ContainerStatuses[1].State.Running == nil {
		t.Errorf("status %+v, want Running with both containers running", st)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Prewarm(ctx, mk("tmpl"), 0); err != nil {
		t.Fatal(err)
	}

	// A command that cannot be found: the gate exits (as runc's create would fail) and no
	// member is made.
	bad := mk("tmpl-bad")
	bad.Containers[0].Command = []string{"/no/such/command"}
	pctx, pcancel := context.WithTimeout(ctx, budget(30*time.Second))
	err = h.rt.Prewarm(pctx, bad, 1)
	pcancel()
	if err == nil || !strings.Contains(err.Error(), "code 127") {
		t.Errorf("Prewarm of a spec whose command does not exist: %v, want the gate's exit code 127", err)
	}
	if err := h.rt.Prewarm(ctx, bad, 0); err != nil {
		t.Fatal(err)
	}
}

// gatedProcesses counts the processes waiting in the exec gate whose command holds mark.
func gatedProcesses(t *testing.T, mark string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.HasPrefix(string(b), execgate.BinaryPath+"\x00--\x00") && strings.Contains(string(b), mark) {
			n++
		}
	}
	return n
}
