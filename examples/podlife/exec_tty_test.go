package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/console"
)

// ptyOutput collects what a pseudo-terminal's master reads.
type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *ptyOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *ptyOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits (up to 20 s) until the output contains want after the first from bytes.
func (o *ptyOutput) waitFor(t *testing.T, from int, want string) bool {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if s := o.String(); len(s) >= from && strings.Contains(s[from:], want) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("terminal output never showed %q; it was:\n%q", want, o.String())
	return false
}

// checkExecTTY runs `podlife exec -it POD CONTAINER -- sh` on a pseudo-terminal, as a user at a
// terminal would: the shell in the container has a terminal of the caller's size, follows a
// resize of the caller's window, and the exec exits with the shell's exit code.
func checkExecTTY(t *testing.T, bin, state, pod, container string) {
	t.Helper()
	checkTTY(t, exec.Command(bin, "exec", "--state-dir", state, "-it", pod, container, "--", "/bin/sh"), "")
}

// checkDebugTTY runs `podlife debug -it POD --image IMG --target T -- sh` on a pseudo-terminal:
// the same checks as checkExecTTY, in a new ephemeral container that sees the target's
// processes (want, in ps's output).
func checkDebugTTY(t *testing.T, bin, state, pod, image, target, want string) {
	t.Helper()
	checkTTY(t, exec.Command(bin, "debug", "--state-dir", state, "-it", pod, "--image", image, "--target", target, "--name", "dbg-tty", "--", "/bin/sh"), want)
}

// checkTTY runs cmd (a shell in a container) on a pseudo-terminal; with want set, the shell's
// ps output must contain it.
func checkTTY(t *testing.T, cmd *exec.Cmd, want string) {
	t.Helper()
	master, slavePath, err := console.NewPty()
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	defer master.Close()
	if err := master.Resize(console.WinSize{Height: 33, Width: 111}); err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile(slavePath, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	out := &ptyOutput{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			out.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	// busybox sh prompts "/ # " on a terminal only. debug attaches after the prompt was
	// printed: it is in the FIFO, or an Enter prints another.
	if !out.waitFor(t, 0, "# ") {
		return
	}
	if want != "" {
		from := len(out.String())
		if _, err := master.Write([]byte("ps -o args\r")); err != nil {
			t.Fatal(err)
		}
		out.waitFor(t, from, want)
	}
	from := len(out.String())
	if _, err := master.Write([]byte("stty size; tty; echo sum-$((6*7))\r")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, from, "33 111")
	out.waitFor(t, from, "/dev/pts/")
	out.waitFor(t, from, "sum-42")

	// The window grows: the CLI passes the new size on (SIGWINCH, sent here by hand as the
	// terminal emulator's kernel would to the foreground process group).
	if err := master.Resize(console.WinSize{Height: 40, Width: 100}); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGWINCH)
	resized := false
	for i := 0; i < 40 && !resized; i++ {
		from = len(out.String())
		if _, err := master.Write([]byte("stty size\r")); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(500 * time.Millisecond)
		for time.Now().Before(deadline) && !resized {
			resized = strings.Contains(out.String()[from:], "40 100")
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !resized {
		t.Errorf("the container's terminal never took the new size 40x100; output:\n%q", out.String())
	}
	if _, err := master.Write([]byte("exit 7\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
		if cmd.ProcessState.ExitCode() != 7 {
			t.Errorf("exec -it exited with %v, want the shell's 7; output:\n%q", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("exec -it did not return after the shell exited; output:\n%q", out.String())
	}
}
