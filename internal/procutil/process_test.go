package procutil_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/procutil"
)

// waitTimeout bounds what should take milliseconds.
const waitTimeout = 10 * time.Second

// start starts sh -c script, which must print a line when it is ready, and
// waits for that line.
func start(t *testing.T, script string) *procutil.Process {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(sh, "-c", script)
	cmd.Stdout = w
	p, err := procutil.Start(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(0) })
	if _, err := bufio.NewReader(r).ReadString('\n'); err != nil {
		t.Fatalf("reading the child's first line: %v", err)
	}
	return p
}

// wait waits for p to exit and returns its Err.
func wait(t *testing.T, p *procutil.Process) error {
	t.Helper()
	select {
	case <-p.Done():
		return p.Err()
	case <-time.After(waitTimeout):
		t.Fatal("the child did not exit")
		return nil
	}
}

func TestStartFails(t *testing.T) {
	p, err := procutil.Start(exec.Command("/nonexistent/binary"))
	if p != nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Start = %v, %v; want nil, ErrNotExist", p, err)
	}
}

func TestExit(t *testing.T) {
	p := start(t, "echo ready; exit 3")
	if p.Pid() <= 0 {
		t.Errorf("Pid = %d", p.Pid())
	}
	var exit *exec.ExitError
	if err := wait(t, p); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Err = %v, want exit status 3", err)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal after the exit = %v, want ErrProcessDone", err)
	}
}

func TestErrBeforeExit(t *testing.T) {
	p := start(t, "echo ready; exec sleep 60")
	if err := p.Err(); err != nil {
		t.Errorf("Err while running = %v, want nil", err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, p); err == nil || err.Error() != "signal: killed" {
		t.Errorf("Err = %v, want signal: killed", err)
	}
}

func TestStop(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"SIGTERM", "echo ready; exec sleep 60", "signal: terminated"},
		{"SIGKILL after grace", "trap '' TERM; echo ready; while :; do sleep 0.01; done", "signal: killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, tt.script)
			begin := time.Now()
			p.Stop(200 * time.Millisecond)
			select {
			case <-p.Done():
			default:
				t.Fatal("Stop returned before the child was reaped")
			}
			if err := p.Err(); err == nil || err.Error() != tt.want {
				t.Errorf("Err = %v, want %s", err, tt.want)
			}
			if d := time.Since(begin); d > waitTimeout {
				t.Errorf("Stop took %v", d)
			}
		})
	}
}
