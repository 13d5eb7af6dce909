package ctrd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	taskv3 "github.com/containerd/containerd/api/runtime/task/v3"
	tasktypes "github.com/containerd/containerd/api/types/task"
	"github.com/containerd/errdefs"
	"github.com/containerd/errdefs/pkg/errgrpc"
	"github.com/containerd/ttrpc"
	"golang.org/x/sys/unix"
	"google.golang.org/protobuf/types/known/emptypb"
)

// fakeShim serves the part of the runc shim's task API v3 that ShimDeleteUnknown uses, with
// the runc shim's rules: a task not served is NotFound, a running one cannot be deleted, a
// shutdown is refused while a task is served.
type fakeShim struct {
	taskv3.TTRPCTaskService // nil: the other calls are not used
	mu                      sync.Mutex
	tasks                   map[string]tasktypes.Status
	stuck                   map[string]bool // delete fails (the bundle is gone)
	shutdown                bool            // a shutdown was accepted
}

func (f *fakeShim) Connect(context.Context, *taskv3.ConnectRequest) (*taskv3.ConnectResponse, error) {
	return &taskv3.ConnectResponse{ShimPid: uint32(os.Getpid())}, nil
}

func (f *fakeShim) State(_ context.Context, r *taskv3.StateRequest) (*taskv3.StateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.tasks[r.ID]
	if !ok {
		return nil, errgrpc.ToGRPCf(errdefs.ErrNotFound, "container not created")
	}
	return &taskv3.StateResponse{ID: r.ID, Status: s}, nil
}

func (f *fakeShim) Kill(_ context.Context, r *taskv3.KillRequest) (*emptypb.Empty, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.tasks[r.ID]; !ok {
		return nil, errgrpc.ToGRPCf(errdefs.ErrNotFound, "container not created")
	}
	f.tasks[r.ID] = tasktypes.Status_STOPPED
	return &emptypb.Empty{}, nil
}

func (f *fakeShim) Delete(_ context.Context, r *taskv3.DeleteRequest) (*taskv3.DeleteResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.tasks[r.ID]
	switch {
	case !ok:
		return nil, errgrpc.ToGRPCf(errdefs.ErrNotFound, "container not created")
	case s != tasktypes.Status_STOPPED:
		return nil, errgrpc.ToGRPC(errors.New("cannot delete a running process"))
	case f.stuck[r.ID]:
		return nil, errgrpc.ToGRPC(errors.New("failed to delete task: open log.json: no such file or directory"))
	}
	delete(f.tasks, r.ID)
	return &taskv3.DeleteResponse{}, nil
}

func (f *fakeShim) Shutdown(context.Context, *taskv3.ShutdownRequest) (*emptypb.Empty, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shutdown = len(f.tasks) == 0
	return &emptypb.Empty{}, nil
}

// serveFake serves f on a socket of its own.
func serveFake(t *testing.T, f *fakeShim) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "shim.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ttrpc.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	taskv3.RegisterTTRPCTaskService(srv, f)
	go func() { _ = srv.Serve(context.Background(), l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sock
}

// The tasks of ids the shim serves are deleted (a created one killed first), the others are
// not touched, and the shutdown is accepted once none is left.
func TestShimDeleteUnknown(t *testing.T) {
	f := &fakeShim{tasks: map[string]tasktypes.Status{
		"stopped": tasktypes.Status_STOPPED, "created": tasktypes.Status_CREATED,
	}}
	sock := serveFake(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	deleted, err := ShimDeleteUnknown(ctx, sock, []string{"stopped", "not-served", "created"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deleted, []string{"stopped", "created"}) {
		t.Errorf("deleted %v, want [stopped created]", deleted)
	}
	if !f.shutdown || len(f.tasks) != 0 {
		t.Errorf("shutdown accepted %v, tasks left %v; want it accepted, none left", f.shutdown, f.tasks)
	}

	// Nothing serving there: no error, nothing deleted.
	if deleted, err := ShimDeleteUnknown(ctx, filepath.Join(t.TempDir(), "none"), []string{"x"}); err != nil || deleted != nil {
		t.Errorf("no shim: %v, %v; want nil, nil", deleted, err)
	}
}

// A task the shim cannot delete is an error naming it; the shim, still serving it, refuses the
// shutdown; a task of another ID (one containerd knows) is left alone.
func TestShimDeleteUnknownStuck(t *testing.T) {
	f := &fakeShim{
		tasks: map[string]tasktypes.Status{"ghost": tasktypes.Status_STOPPED, "known": tasktypes.Status_RUNNING},
		stuck: map[string]bool{"ghost": true},
	}
	sock := serveFake(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	deleted, err := ShimDeleteUnknown(ctx, sock, []string{"ghost"})
	if err == nil || !strings.Contains(err.Error(), "task ghost") {
		t.Errorf("error %v, want one naming task ghost", err)
	}
	if len(deleted) != 0 || f.shutdown || f.tasks["known"] != tasktypes.Status_RUNNING {
		t.Errorf("deleted %v, shutdown %v, tasks %v; want nothing deleted, no shutdown, known running", deleted, f.shutdown, f.tasks)
	}
}

// A process listening on the socket that never answers (a shim whose start was cut, waiting
// for a reader of its log) is ErrShimNotAnswering, not "no shim".
func TestShimDeleteUnknownNotAnswering(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "shim.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := ShimDeleteUnknown(ctx, sock, []string{"x"}); !errors.Is(err, ErrShimNotAnswering) {
		t.Errorf("error %v, want ErrShimNotAnswering", err)
	}
}

// FindShims holds the shim daemons of the namespace started for one of the IDs, by their
// command line, not a `shim start` nor another namespace's; Kill ends one with its children.
func TestFindShims(t *testing.T) {
	ns := fmt.Sprintf("ctrd-test-%d", os.Getpid())
	// The fake shim is sh executed through a link named as the shim's binary, as containerd
	// executes a shim by its path (FindShims reads the command lines of processes whose command
	// name can be a shim's only).
	bin := filepath.Join(t.TempDir(), "containerd-shim-runc-v2")
	if err := os.Symlink("/bin/sh", bin); err != nil {
		t.Fatal(err)
	}
	start := func(args ...string) *exec.Cmd {
		// sh keeps its argv (the command after -c is not its last: no exec), and runs a child.
		cmd := &exec.Cmd{Path: bin, Args: append([]string{bin, "-c", "sleep 60; :"}, args...)}
		if err := cmd.Start(); err != nil {
			t.Skip("no /bin/sh:", err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	shim := start("-namespace", ns, "-id", "a1", "-address", "/x.sock")
	start("-namespace", ns, "-id", "a1", "-address", "/x.sock", "start") // the start action
	start("-namespace", ns+"-other", "-id", "a1")                        // another namespace
	start("-namespace", ns, "-id", "b2")                                 // another ID
	var found []*ShimProcess
	deadline := time.Now().Add(10 * time.Second)
	for len(found) == 0 || len(children(shim.Process.Pid)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("found %v (children %v), want the shim %d", found, children(shim.Process.Pid), shim.Process.Pid)
		}
		time.Sleep(20 * time.Millisecond) // the fake shim starts its child
		for _, f := range found {
			_ = f.Close()
		}
		found = FindShims(ns, []string{"a1", "c3"})
	}
	if len(found) != 1 || found[0].PID() != shim.Process.Pid || found[0].ID() != "a1" {
		t.Fatalf("found %d shims (first %d %s), want one, %d a1", len(found), found[0].PID(), found[0].ID(), shim.Process.Pid)
	}
	p := found[0]
	defer p.Close()
	child := children(p.PID())[0]
	if p.Exited() {
		t.Fatal("Exited before the kill")
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = shim.Wait() // the test is its parent: reap it, so that the pidfd reports the exit
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Wait(ctx); err != nil || !p.Exited() {
		t.Errorf("wait after kill: %v (exited %v)", err, p.Exited())
	}
	for unix.Kill(child, 0) == nil {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child)); strings.Contains(string(b), ") Z ") {
			break // a zombie: killed, not reaped yet
		}
		if ctx.Err() != nil {
			t.Fatalf("the shim's child %d still runs", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
