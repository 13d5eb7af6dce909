package probe

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
)

// fakeExecer records the commands it runs and answers with a fixed result, or
// blocks until ctx is done when block is set.
type fakeExecer struct {
	res   hook.ExecResult
	err   error
	block bool
	// blockErr, if set, is returned instead of ctx.Err() after blocking, as
	// a runtime that wraps the context error in its own does.
	blockErr error
	calls    [][]string
}

func (f *fakeExecer) Exec(ctx context.Context, argv []string) (hook.ExecResult, error) {
	f.calls = append(f.calls, argv)
	if f.block {
		<-ctx.Done()
		if f.blockErr != nil {
			return hook.ExecResult{ExitCode: -1}, f.blockErr
		}
		return hook.ExecResult{ExitCode: -1}, ctx.Err()
	}
	return f.res, f.err
}

func TestExec(t *testing.T) {
	big := bytes.Repeat([]byte("y"), 2*hook.MaxOutputBytes)
	execErr := errors.New("container not running")
	tests := []struct {
		name    string
		ex      *fakeExecer
		want    Result
		wantMsg string
		wantErr error
	}{
		{"exit 0", &fakeExecer{res: hook.ExecResult{Output: []byte("ok\n")}}, Success, "ok\n", nil},
		{"exit 1", &fakeExecer{res: hook.ExecResult{ExitCode: 1, Output: []byte("not ready\n")}}, Failure, "not ready\n", nil},
		{"exit 137", &fakeExecer{res: hook.ExecResult{ExitCode: 137}}, Failure, "", nil},
		{"output capped", &fakeExecer{res: hook.ExecResult{Output: big}}, Success, string(big[:hook.MaxOutputBytes]), nil},
		{"execer error", &fakeExecer{err: execErr}, Unknown, "", execErr},
		{"execer deadline error", &fakeExecer{err: context.DeadlineExceeded}, Failure, `command "cat /tmp/ready" timed out`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, msg, err := Exec("cat", "/tmp/ready").Probe(context.Background(), hook.Target{Exec: tt.ex})
			if r != tt.want || msg != tt.wantMsg || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Probe = %v, %.40q (len %d), %v; want %v, %.40q (len %d), %v", r, msg, len(msg), err, tt.want, tt.wantMsg, len(tt.wantMsg), tt.wantErr)
			}
			if want := [][]string{{"cat", "/tmp/ready"}}; !slices.EqualFunc(tt.ex.calls, want, slices.Equal) {
				t.Errorf("execer got %q, want %q", tt.ex.calls, want)
			}
		})
	}
}

func TestExecTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, msg, err := Exec("sh", "-c", "sleep 100").Probe(ctx, hook.Target{Exec: &fakeExecer{block: true}})
	if r != Failure || msg != `command "sh -c sleep 100" timed out` || err != nil {
		t.Errorf("Probe = %v, %q, %v; want failure, timed out, nil", r, msg, err)
	}
	if d := time.Since(start); d > waitTimeout {
		t.Errorf("Probe took %v", d)
	}
}

func TestExecTimeoutOpaqueError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ex := &fakeExecer{block: true, blockErr: errors.New("rpc error: code = DeadlineExceeded desc = exec timed out")}
	r, msg, err := Exec("pg_isready").Probe(ctx, hook.Target{Exec: ex})
	if r != Failure || msg != `command "pg_isready" timed out` || err != nil {
		t.Errorf("Probe = %v, %q, %v; want failure, timed out, nil", r, msg, err)
	}
}

func TestExecCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	r, _, err := Exec("true").Probe(ctx, hook.Target{Exec: &fakeExecer{block: true}})
	if r != Unknown || !errors.Is(err, context.Canceled) {
		t.Errorf("Probe = %v, %v; want unknown, context.Canceled", r, err)
	}
}

func TestExecNoExecer(t *testing.T) {
	r, _, err := Exec("true").Probe(context.Background(), hook.Target{})
	if r != Unknown || !errors.Is(err, hook.ErrNoExecer) {
		t.Errorf("Probe = %v, %v; want unknown, ErrNoExecer", r, err)
	}
}

func TestExecEmpty(t *testing.T) {
	ex := &fakeExecer{}
	r, _, err := Exec().Probe(context.Background(), hook.Target{Exec: ex})
	var fe *FieldError
	if r != Unknown || !errors.As(err, &fe) || fe.Field != "exec.command" {
		t.Errorf("Probe = %v, %v; want unknown, exec.command error", r, err)
	}
	if len(ex.calls) != 0 {
		t.Errorf("execer called %d times", len(ex.calls))
	}
}
