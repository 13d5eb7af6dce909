package hook

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeExecer records the commands it is asked to run and answers with a fixed
// result, or by blocking until ctx is done when block is set.
type fakeExecer struct {
	res   ExecResult
	err   error
	block bool
	calls [][]string
}

func (f *fakeExecer) Exec(ctx context.Context, argv []string) (ExecResult, error) {
	f.calls = append(f.calls, argv)
	if f.block {
		<-ctx.Done()
		return ExecResult{ExitCode: -1}, ctx.Err()
	}
	return f.res, f.err
}

func TestExec(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3*MaxOutputBytes)
	execErr := errors.New("container not running")
	tests := []struct {
		name       string
		ex         *fakeExecer
		wantOK     bool
		wantCode   int    // for ExitError
		wantCause  error  // for errors.Is
		wantOutLen int    // len(Error.Output)
		wantMsg    string // substring of the message
	}{
		{name: "exit 0", ex: &fakeExecer{res: ExecResult{Output: []byte("fine")}}, wantOK: true},
		{name: "exit 3", ex: &fakeExecer{res: ExecResult{ExitCode: 3, Output: []byte("boom\n")}},
			wantCode: 3, wantOutLen: 5,
			wantMsg: `lifecycle hook exec [sh -c exit 3] for container "app" in pod "web" failed: exit code 3, output: "boom\n"`},
		{name: "exit 1 no output", ex: &fakeExecer{res: ExecResult{ExitCode: 1}},
			wantCode: 1, wantMsg: `failed: exit code 1, output: ""`},
		{name: "output capped", ex: &fakeExecer{res: ExecResult{ExitCode: 2, Output: big}},
			wantCode: 2, wantOutLen: MaxOutputBytes, wantMsg: "exit code 2"},
		{name: "execer error", ex: &fakeExecer{err: execErr}, wantCause: execErr, wantMsg: "failed: container not running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Exec("sh", "-c", "exit 3")
			err := h.Run(context.Background(), Target{Pod: "web", Container: "app", Exec: tt.ex})
			if want := [][]string{{"sh", "-c", "exit 3"}}; !slices.EqualFunc(tt.ex.calls, want, slices.Equal) {
				t.Errorf("execer got %q, want %q", tt.ex.calls, want)
			}
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
				return
			}
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("Run = %v (%T), want *Error", err, err)
			}
			if he.Kind != "exec" || he.Pod != "web" || he.Container != "app" {
				t.Errorf("Error = %+v", he)
			}
			if len(he.Output) != tt.wantOutLen {
				t.Errorf("len(Output) = %d, want %d", len(he.Output), tt.wantOutLen)
			}
			if len(err.Error()) > MaxOutputBytes*5 {
				t.Errorf("message is %d bytes long", len(err.Error()))
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("message %q does not contain %q", err.Error(), tt.wantMsg)
			}
			var exit *ExitError
			if tt.wantCode != 0 {
				if !errors.As(err, &exit) || exit.Code != tt.wantCode {
					t.Errorf("ExitError = %v, want code %d", exit, tt.wantCode)
				}
			}
			if tt.wantCause != nil && !errors.Is(err, tt.wantCause) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantCause)
			}
		})
	}
}

func TestExecNoExecer(t *testing.T) {
	err := Exec("true").Run(context.Background(), Target{})
	if !errors.Is(err, ErrNoExecer) {
		t.Fatalf("Run = %v, want ErrNoExecer", err)
	}
}

func TestExecArgvIsCopied(t *testing.T) {
	argv := []string{"echo", "a"}
	h := Exec(argv...)
	argv[1] = "changed"
	ex := &fakeExecer{}
	if err := h.Run(context.Background(), Target{Exec: ex}); err != nil {
		t.Fatal(err)
	}
	ex.calls[0][1] = "mutated by execer"
	if err := h.Run(context.Background(), Target{Exec: ex}); err != nil {
		t.Fatal(err)
	}
	if got := ex.calls[1]; got[1] != "a" {
		t.Errorf("second run got argv %q", got)
	}
}

func TestExecContextDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Exec("sleep", "100").Run(ctx, Target{Exec: &fakeExecer{block: true}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run took %v", d)
	}
}
