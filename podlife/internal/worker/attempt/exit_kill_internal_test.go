package attempt

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// killTask is a task whose process exits at the first signal in exitOn.
type killTask struct {
	tasks.Task
	mu     sync.Mutex
	kills  []string
	exitOn map[syscall.Signal]bool
	exited chan struct{}
}

func (k *killTask) Kill(_ context.Context, sig syscall.Signal, all bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := sig.String()
	if all {
		s += " (all)"
	}
	k.kills = append(k.kills, s)
	if k.exitOn[sig] {
		select {
		case <-k.exited:
		default:
			close(k.exited)
		}
	}
	return nil
}

func testConn() Conn {
	return Conn{
		Retry:        func(_ context.Context, call func() error) error { return call() },
		LostConn:     func(context.Context, error) bool { return false },
		Disconnected: func() bool { return false },
		ConnUp:       func() <-chan struct{} { c := make(chan struct{}); close(c); return c },
		Closing:      make(chan struct{}),
		IsClosed:     func() bool { return false },
		Log:          slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// Kill sends the stop signal, and SIGKILL to every process once the remaining grace is over;
// a process that exits at the stop signal gets nothing more.
func TestKill(t *testing.T) {
	for _, tc := range []struct {
		name   string
		exitOn syscall.Signal
		want   []string
	}{
		{"exits at the stop signal", syscall.SIGQUIT, []string{"quit"}},
		{"ignores it", syscall.SIGKILL, []string{"quit", "killed (all)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := &killTask{exitOn: map[syscall.Signal]bool{tc.exitOn: true}, exited: make(chan struct{})}
			t0 := time.Now()
			Kill(context.Background(), testConn(), Signalled{Name: "c", Task: task, Exited: task.exited}, syscall.SIGQUIT, 100*time.Millisecond)
			if took := time.Since(t0); took > killWaitTimeout {
				t.Errorf("Kill took %v", took)
			}
			task.mu.Lock()
			defer task.mu.Unlock()
			if len(task.kills) != len(tc.want) {
				t.Fatalf("signals %v, want %v", task.kills, tc.want)
			}
			for i := range tc.want {
				if task.kills[i] != tc.want[i] {
					t.Errorf("signals %v, want %v", task.kills, tc.want)
				}
			}
		})
	}
}

// waitTask is a task whose Wait hands out the channels of exits.
type waitTask struct {
	tasks.Task
	waits chan (<-chan ctrd.ExitStatus)
}

func (w *waitTask) Wait(context.Context) (<-chan ctrd.ExitStatus, error) { return <-w.waits, nil }

func (w *waitTask) Status(context.Context) (ctrd.Status, error) { return ctrd.Status{}, nil }

func exitWith(code uint32, at time.Time, err error) <-chan ctrd.ExitStatus {
	ch := make(chan ctrd.ExitStatus, 1)
	ch <- *ctrd.NewExitStatus(code, at, err)
	return ch
}

// AwaitExit returns the exit's status and time; a wait that failed with containerd answering
// is waited on again, and the exit that follows is the one returned.
func TestAwaitExit(t *testing.T) {
	at := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	code, got, err := AwaitExit(context.Background(), testConn(), Waited{ID: "x", Name: "c", Exit: exitWith(3, at, nil)})
	if err != nil || code != 3 || !got.Equal(at) {
		t.Errorf("AwaitExit: %d %v %v, want 3 at %v", code, got, err, at)
	}
	task := &waitTask{waits: make(chan (<-chan ctrd.ExitStatus), 1)}
	task.waits <- exitWith(7, at, nil)
	code, got, err = AwaitExit(context.Background(), testConn(), Waited{ID: "x", Name: "c", Task: task,
		Exit: exitWith(ctrd.UnknownExitStatus, time.Time{}, context.DeadlineExceeded)})
	if err != nil || code != 7 || !got.Equal(at) {
		t.Errorf("AwaitExit after a failed wait: %d %v %v, want 7 at %v", code, got, err, at)
	}
}
