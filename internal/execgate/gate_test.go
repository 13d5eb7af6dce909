package execgate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wait returns once podlife's end writes the start byte, and with errManagerGone when it
// closes without one; FIFO.Wait returns only once the gate waits on the FIFO.
func TestWait(t *testing.T) {
	for _, release := range []bool{true, false} {
		fifo, err := NewFIFO(filepath.Join(t.TempDir(), FIFOName("c1")))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		// Nobody waits yet: Wait keeps trying until gone says so.
		tries := 0
		if err := fifo.Wait(ctx, func() bool { tries++; return tries > 3 }); !errors.Is(err, ErrGateExited) {
			t.Fatalf("Wait with no gate: %v, want ErrGateExited", err)
		}
		done := make(chan error, 1)
		go func() { done <- wait(fifo.Path()) }()
		if err := fifo.Wait(ctx, func() bool { return false }); err != nil {
			t.Fatalf("Wait: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("the gate went on before the release: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		dir, id := filepath.Dir(fifo.Path()), strings.TrimPrefix(filepath.Base(fifo.Path()), FIFOName(""))
		if Released(dir, id) {
			t.Errorf("Released before the release")
		}
		if release {
			if err := fifo.Release(ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
			if !Released(dir, id) {
				t.Errorf("the FIFO file is left after the release")
			}
			if err := <-done; err != nil {
				t.Errorf("released gate: %v", err)
			}
			if err := fifo.Release(ctx); err == nil {
				t.Errorf("a second Release succeeded")
			}
		} else {
			if err := fifo.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := <-done; !errors.Is(err, errManagerGone) {
				t.Errorf("gate whose writer closed: %v, want errManagerGone", err)
			}
		}
		cancel()
		fifo.Close()
	}
}

// Main's own failures, before any wait: usage, and a command that cannot be found (as runc's
// create fails).
func TestMainFailures(t *testing.T) {
	var out strings.Builder
	if code := Main([]string{"gate", "sh"}, "/nonexistent", &out); code != ExitUsage {
		t.Errorf("no --: code %d, want %d", code, ExitUsage)
	}
	out.Reset()
	if code := Main([]string{"gate", "--", "no-such-command-podlife"}, "/nonexistent", &out); code != ExitNotFound || !strings.Contains(out.String(), "no-such-command-podlife") {
		t.Errorf("unknown command: code %d (%q), want %d naming it", code, out.String(), ExitNotFound)
	}
	out.Reset()
	if code := Main([]string{"gate", "--", "/bin/true"}, "/nonexistent/fifo", &out); code != ExitExec || !strings.Contains(out.String(), "/nonexistent/fifo") {
		t.Errorf("no FIFO: code %d (%q), want %d", code, out.String(), ExitExec)
	}
}

// A released gate whose command cannot be executed (ENOEXEC: a script without "#!") fails as
// runc's init does: "exec <path>: <error>" on stderr, exit code 1.
func TestMainExecFails(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "noshebang")
	if err := os.WriteFile(script, []byte("echo never\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo, err := NewFIFO(filepath.Join(dir, FIFOName("c1")))
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		if fifo.Wait(ctx, func() bool { return false }) == nil {
			_ = fifo.Release(ctx)
		}
	}()
	var out strings.Builder
	if code := Main([]string{"gate", "--", script}, fifo.Path(), &out); code != ExitExecFailed || out.String() != "exec "+script+": exec format error\n" {
		t.Errorf("exec of a script without #!: code %d, %q; want %d, runc's message", code, out.String(), ExitExecFailed)
	}
}

// CheckBinary accepts a statically linked program only.
func TestCheckBinary(t *testing.T) {
	if err := CheckBinary("relative/path"); err == nil {
		t.Error("a relative path was accepted")
	}
	if err := CheckBinary("/bin/sh"); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("/bin/sh (dynamic): %v, want dynamically linked", err)
	}
	if err := CheckBinary("/etc/hostname"); err == nil {
		t.Error("a text file was accepted")
	}
}
