package teardown

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// target is an instance whose process exits at its stop signal; it records what KillInstance
// did, in order.
type target struct {
	tasks.Task
	mu                    sync.Mutex
	steps                 []string
	running, exitRecorded bool
	noTask                bool
	exited                chan struct{}
	preStopErr            error
}

func (t *target) step(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps = append(t.steps, s)
}

func (t *target) Kill(_ context.Context, sig syscall.Signal, _ bool) error {
	t.step("signal " + sig.String())
	select {
	case <-t.exited:
	default:
		close(t.exited)
	}
	return nil
}

// of is t as KillInstance sees it.
func (t *target) of() Target {
	return Target{Exited: t.exited,
		State: func() (tasks.Task, bool, bool) {
			if t.noTask {
				return nil, false, false
			}
			return t, t.running, t.exitRecorded
		},
		NeverRan: func() { t.step("never ran"); close(t.exited) },
		Emit:     func(typ api.EventType, reason api.Reason, msg string) { t.step(string(reason) + ": " + msg) },
		PreStop: func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				t.step("preStop without a deadline")
			}
			t.step("preStop")
			return t.preStopErr
		},
		AwaitOutlived: func(time.Time) { t.step("outlived") },
	}
}

func conn() attempt.Conn {
	return attempt.Conn{
		Retry:    func(_ context.Context, call func() error) error { return call() },
		LostConn: func(context.Context, error) bool { return false },
		Closing:  make(chan struct{}),
		IsClosed: func() bool { return false },
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// The kubelet's kill sequence: Killing event, preStop (when asked and within a grace period),
// the sidecars' termination order, the stop signal; nothing for an instance without a task, an
// exit already recorded, or a process never started.
func TestKillInstance(t *testing.T) {
	kill := Kill{Name: "c", Grace: time.Minute, PreStop: true, Signal: syscall.SIGTERM}
	for _, tc := range []struct {
		name   string
		target *target
		kill   Kill
		want   []string
	}{
		{"running", &target{running: true}, kill,
			[]string{"Killing: Stopping container c", "preStop", "outlived", "signal terminated"}},
		{"reason, no hook", &target{running: true}, Kill{Name: "c", Grace: time.Minute, Reason: "probe failed", Signal: syscall.SIGINT},
			[]string{"Killing: probe failed", "outlived", "signal interrupt"}},
		{"no grace: no preStop", &target{running: true}, Kill{Name: "c", PreStop: true, Signal: syscall.SIGTERM},
			[]string{"Killing: Stopping container c", "outlived", "signal terminated"}},
		{"preStop fails", &target{running: true, preStopErr: context.DeadlineExceeded}, kill,
			[]string{"Killing: Stopping container c", "preStop", "FailedPreStopHook: PreStopHook failed", "outlived", "signal terminated"}},
		{"never started", &target{}, kill, []string{"never ran"}},
		{"no task", &target{noTask: true}, kill, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.target.exited = make(chan struct{})
			KillInstance(context.Background(), conn(), tc.target.of(), tc.kill)
			if !slices.Equal(tc.target.steps, tc.want) {
				t.Errorf("steps %q, want %q", tc.target.steps, tc.want)
			}
		})
	}
	t.Run("exit recorded", func(t *testing.T) {
		tg := &target{running: true, exitRecorded: true, exited: make(chan struct{})}
		done := make(chan struct{})
		go func() { KillInstance(context.Background(), conn(), tg.of(), kill); close(done) }()
		close(tg.exited) // its Exited event published: KillInstance returns, having done nothing
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("KillInstance did not return once the recorded exit was published")
		}
		if len(tg.steps) != 0 {
			t.Errorf("steps %q, want none", tg.steps)
		}
	})
}
