package podlife

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// fakeTasks is a tasks.Runtime (and a cni.Network) without containerd, runc or root: a container's
// process is a channel whose exit the test triggers (exit) or a signal causes. It records, in
// order, the calls that matter to the supervision rules, one string each:
//
//	create NAME        a container created (attempt 0; NAME#N for attempt N)
//	task NAME          its task being created (runc create; "task NAME returns" if held)
//	start NAME         its process started
//	kill NAME SIG      a signal sent (SIG "TERM", "KILL", "KILL all" for every process)
//	exited NAME CODE   its process exited
//	delete-task NAME   its task deleted (a live process is killed: exit 137)
//	delete NAME        its container deleted
//	exec NAME ARGV     a process run in it
//	network setup / network remove
//
// Tests add their own entries (hook runs) with note.
type fakeTasks struct {
	clk clock.Clock // exit times come from it (the restart back-off reads them)

	mu      sync.Mutex
	calls   []string
	procs   []*fakeProc
	leased  map[string]map[string]string // leases: their labels by ID
	changed chan struct{}                // closed and replaced on every new call

	// Behaviour, set before the pod starts (by container name).
	createErr      map[string]error         // NewContainer fails
	startErr       map[string]error         // start fails
	ignoreTerm     map[string]bool          // SIGTERM does not end the process (SIGKILL does)
	absent         map[string]bool          // image refs not present locally
	taskGate       map[string]chan struct{} // its task create waits until the channel is closed
	shimEarly      map[string]bool          // its task create starts a shim that answers at once
	shimUp         map[string]bool          // shim groups (owner container IDs) whose shim answers
	netRemoveFails int                      // how many of the next network removes fail
	leaseGate      chan struct{}            // a lease delete waits until it is closed (noted "delete-lease waits")
	execFn         func(name string, argv []string) (int, error)
}

var (
	_ tasks.Runtime = (*fakeTasks)(nil)
	_ cni.Network   = (*fakeTasks)(nil)
)

func newFakeTasks(clk clock.Clock) *fakeTasks {
	return &fakeTasks{clk: clk, changed: make(chan struct{}),
		createErr: map[string]error{}, startErr: map[string]error{}, ignoreTerm: map[string]bool{}, absent: map[string]bool{},
		taskGate: map[string]chan struct{}{}, shimEarly: map[string]bool{}, shimUp: map[string]bool{}}
}

// note records a call.
func (f *fakeTasks) note(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.noteLocked(format, args...)
}

// noteLocked records a call; f.mu is held.
func (f *fakeTasks) noteLocked(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	close(f.changed)
	f.changed = make(chan struct{})
}

// history returns the calls so far.
func (f *fakeTasks) history() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// index returns the position of the first call, or -1.
func (f *fakeTasks) index(call string) int { return slices.Index(f.history(), call) }

// waitCall waits (up to 10 s) until call has been recorded and returns its position.
func (f *fakeTasks) waitCall(t *testing.T, call string) int {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		i, ch := slices.Index(f.calls, call), f.changed
		f.mu.Unlock()
		if i >= 0 {
			return i
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("no %q call within 10s; calls: %q", call, f.history())
			return -1
		}
	}
}

// exit ends the live process of container name (its latest started instance) with code.
func (f *fakeTasks) exit(t *testing.T, name string, code int) {
	t.Helper()
	f.mu.Lock()
	var p *fakeProc
	for _, q := range f.procs {
		if q.name == name && q.started && !q.isDone() {
			p = q
		}
	}
	f.mu.Unlock()
	if p == nil {
		t.Fatalf("exit %s: no live process; calls: %q", name, f.history())
	}
	p.finish(code)
}

func (f *fakeTasks) LocalImage(_ context.Context, ref string) (tasks.Image, bool, error) {
	if f.absent[ref] {
		return tasks.Image{}, false, nil
	}
	return tasks.Image{Name: ref, ID: "sha256:fake"}, true, nil
}

func (f *fakeTasks) PullImage(_ context.Context, ref string, _ []RegistryCredential) (tasks.Image, error) {
	f.note("pull %s", ref)
	return tasks.Image{Name: ref, ID: "sha256:fake"}, nil
}

func (f *fakeTasks) MountImage(_ context.Context, img tasks.Image, key, _ string) error {
	f.note("mount image %s as %s", img.Name, key)
	return nil
}

func (f *fakeTasks) RemoveView(_ context.Context, key string) error {
	f.note("remove view %s", key)
	return nil
}

func (f *fakeTasks) ImageConfig(context.Context, tasks.Image) (ocispec.Image, error) {
	return ocispec.Image{}, nil
}

func (f *fakeTasks) NewContainer(_ context.Context, id string, _ tasks.Class, img tasks.Image, labels map[string]string, _ string, _ []oci.SpecOpts) (tasks.Container, error) {
	name := labels[labelContainer]
	label := name
	if a := labels[labelAttempt]; a != "0" {
		label += "#" + a
	}
	if err := f.createErr[name]; err != nil {
		f.note("create %s failed", label)
		return nil, err
	}
	p := &fakeProc{f: f, id: id, name: name, label: label, labels: labels, image: img.Name, done: make(chan struct{})}
	f.mu.Lock()
	f.procs = append(f.procs, p)
	f.mu.Unlock()
	f.note("create %s", label)
	return &fakeCtr{p: p}, nil
}

func (f *fakeTasks) PinNamespaces(dir string, kinds []sandboxns.Kind, _ string) (map[sandboxns.Kind]string, error) {
	out := make(map[sandboxns.Kind]string, len(kinds))
	for _, k := range kinds {
		out[k] = filepath.Join(dir, fmt.Sprint(k))
	}
	return out, nil
}

func (f *fakeTasks) UnpinNamespaces(string) error { return nil }

func (f *fakeTasks) NewPause(ctx context.Context, id string, rt tasks.Class, labels map[string]string, opts []oci.SpecOpts) (tasks.Container, error) {
	return f.NewContainer(ctx, id, rt, tasks.Image{}, labels, "", opts)
}

func (f *fakeTasks) PinProcessNamespace(dir string, k sandboxns.Kind, pid int) (string, error) {
	f.note("pin %s %d", k, pid)
	return filepath.Join(dir, fmt.Sprint(k)), nil
}

func (f *fakeTasks) PinContainerNamespace(dir string, k sandboxns.Kind, pid int, cgroup string) (string, error) {
	f.note("pin %s %d of %s", k, pid, cgroup)
	return filepath.Join(dir, fmt.Sprint(k)), nil
}

func (f *fakeTasks) SocketAnswers() bool { return true }

func (f *fakeTasks) ShimAnswers(group string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shimUp[group]
}

func (f *fakeTasks) RemoveStaleShim(string, *slog.Logger) {}

// Setup is cni.Network's: a fixed address.
func (f *fakeTasks) Setup(context.Context, string, string, ...cni.AttachOption) (*cni.Result, error) {
	f.note("network setup")
	ip := netip.MustParseAddr("10.123.0.2")
	return &cni.Result{Interface: "eth0", IP: ip, Prefix: netip.PrefixFrom(ip, 24)}, nil
}

// Remove is cni.Network's.
func (f *fakeTasks) Remove(context.Context, string, string, ...cni.AttachOption) error {
	f.mu.Lock()
	fail := f.netRemoveFails > 0
	if fail {
		f.netRemoveFails--
	}
	f.mu.Unlock()
	if fail {
		f.note("network remove fails")
		return errors.New("fake CNI DEL failure")
	}
	f.note("network remove")
	return nil
}

// fakeProc is one instance: its container, task and process.
type fakeProc struct {
	f           *fakeTasks
	id          string
	name, label string // container name; name#attempt
	labels      map[string]string
	image       string

	// Guarded by f.mu.
	started  bool
	hasTask  bool
	deleted  bool // its container deleted
	finished bool
	code     uint32
	at       time.Time
	done     chan struct{} // closed when the process exited
}

func (p *fakeProc) isDone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// finish ends the process with code (once).
func (p *fakeProc) finish(code int) {
	p.f.mu.Lock()
	if p.finished {
		p.f.mu.Unlock()
		return
	}
	p.finished, p.code, p.at = true, uint32(code), p.f.clk.Now()
	// Recorded before anything can see the exit: what the exit leads to (a restart, the next
	// step of a stop) comes after it in the call log.
	p.f.noteLocked("exited %s %d", p.label, code)
	close(p.done)
	p.f.mu.Unlock()
}

type fakeCtr struct{ p *fakeProc }

func (c *fakeCtr) NewTask(context.Context, tasks.Output) (tasks.Task, error) {
	f := c.p.f
	f.note("task %s", c.p.label)
	f.mu.Lock()
	if f.shimEarly[c.p.name] {
		f.shimUp[c.p.id] = true
	}
	gate := f.taskGate[c.p.name]
	f.mu.Unlock()
	if gate != nil {
		<-gate
		f.note("task %s returns", c.p.label)
	}
	f.mu.Lock()
	c.p.hasTask = true
	f.mu.Unlock()
	return &fakeTask{p: c.p}, nil
}

func (c *fakeCtr) LoadTask(context.Context) (tasks.Task, error) {
	c.p.f.mu.Lock()
	defer c.p.f.mu.Unlock()
	if !c.p.hasTask {
		return nil, errdefs.ErrNotFound
	}
	return &fakeTask{p: c.p}, nil
}

func (c *fakeCtr) TaskGone(context.Context) bool {
	c.p.f.mu.Lock()
	defer c.p.f.mu.Unlock()
	return !c.p.hasTask
}

func (c *fakeCtr) ProcessSpec(context.Context) (*specs.Process, error) {
	return &specs.Process{Cwd: "/"}, nil
}

func (c *fakeCtr) Delete(context.Context) error {
	c.p.f.note("delete %s", c.p.label)
	c.p.f.mu.Lock()
	c.p.deleted = true
	c.p.f.mu.Unlock()
	return nil
}

func (c *fakeCtr) Purge(context.Context) error {
	f := c.p.f
	f.note("purge %s", c.p.label)
	c.p.finish(137)
	f.mu.Lock()
	c.p.hasTask, c.p.deleted = false, true
	f.mu.Unlock()
	return nil
}

func (c *fakeCtr) OOMKilled() bool     { return false }
func (c *fakeCtr) RemoveCgroup() error { return nil }
func (c *fakeCtr) SweepCgroup() error  { return nil }

type fakeTask struct{ p *fakeProc }

func (t *fakeTask) Wait(ctx context.Context) (<-chan ctrd.ExitStatus, error) {
	ch := make(chan ctrd.ExitStatus, 1)
	go func() {
		select {
		case <-t.p.done:
			t.p.f.mu.Lock()
			code, at := t.p.code, t.p.at
			t.p.f.mu.Unlock()
			ch <- *ctrd.NewExitStatus(code, at, nil)
		case <-ctx.Done():
			ch <- *ctrd.NewExitStatus(ctrd.UnknownExitStatus, time.Time{}, ctx.Err())
		}
	}()
	return ch, nil
}

func (t *fakeTask) PID() uint32 { return 4242 }

func (t *fakeTask) Start(context.Context) error {
	f := t.p.f
	if err := f.startErr[t.p.name]; err != nil {
		f.note("start %s failed", t.p.label)
		return err
	}
	f.mu.Lock()
	t.p.started = true
	f.mu.Unlock()
	f.note("start %s", t.p.label)
	return nil
}

func (t *fakeTask) Kill(_ context.Context, sig syscall.Signal, all bool) error {
	f := t.p.f
	name := map[syscall.Signal]string{syscall.SIGTERM: "TERM", syscall.SIGKILL: "KILL"}[sig]
	if name == "" {
		name = strconv.Itoa(int(sig))
	}
	if all {
		name += " all"
	}
	if t.p.isDone() {
		return fmt.Errorf("process already finished: %w", errdefs.ErrNotFound)
	}
	f.note("kill %s %s", t.p.label, name)
	if sig == syscall.SIGTERM && f.ignoreTerm[t.p.name] {
		return nil
	}
	t.p.finish(128 + int(sig))
	return nil
}

func (t *fakeTask) Status(context.Context) (ctrd.Status, error) {
	f := t.p.f
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case t.p.finished:
		return ctrd.Status{Status: ctrd.Stopped, ExitStatus: t.p.code, ExitTime: t.p.at}, nil
	case t.p.started:
		return ctrd.Status{Status: ctrd.Running}, nil
	}
	return ctrd.Status{Status: ctrd.Created}, nil
}

func (t *fakeTask) Delete(context.Context) error {
	f := t.p.f
	f.note("delete-task %s", t.p.label)
	t.p.finish(137)
	f.mu.Lock()
	t.p.hasTask = false
	f.mu.Unlock()
	return nil
}

func (t *fakeTask) Exec(_, _ context.Context, _ specs.Process, argv []string, _ ExecIO, _ string) (int, error) {
	f := t.p.f
	f.note("exec %s %s", t.p.label, strings.Join(argv, " "))
	if f.execFn != nil {
		return f.execFn(t.p.name, argv)
	}
	return 0, nil
}

func (t *fakeTask) Resize(context.Context, uint32, uint32) error { return nil }

// fakeEpoch is where the tests' fake clocks start.
var fakeEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newFakeRuntime returns a Runtime on a fake tasks.Runtime and network and a fake clock (the
// restart back-off's), with its own state dir. The test's cleanup removes its pods and closes it.
func newFakeRuntime(t *testing.T) (*Runtime, *fakeTasks, *clock.Fake) {
	t.Helper()
	// Not t.TempDir: its long path would leave the control socket without an address.
	dir, err := os.MkdirTemp("", "plf-")
	if err != nil {
		t.Fatal(err)
	}
	var log *slog.Logger
	if os.Getenv("PODLIFE_FAKE_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name())
	}
	clk := clock.NewFake(fakeEpoch)
	r := newRuntime(Config{StateDir: dir, Logger: log}.withDefaults(), clk)
	f := newFakeTasks(clk)
	r.tasks, r.network = f, f
	t.Cleanup(func() {
		defer os.RemoveAll(dir)
		if r.isClosed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, p := range r.Pods() {
			if err := p.Remove(ctx); err != nil {
				t.Errorf("cleanup: remove pod %s: %v", p.Name(), err)
			}
		}
		if err := r.Close(); err != nil {
			t.Errorf("cleanup: Close: %v", err)
		}
	})
	return r, f, clk
}
