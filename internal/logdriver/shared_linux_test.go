package logdriver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/crilog"
)

// TestMain lets the test binary be the shared logger a hand-off starts (it re-executes itself,
// as podlife-logger does).
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == argDaemon {
		os.Exit(daemonMain(os.Args[2]))
	}
	if len(os.Args) == 2 && os.Args[1] == argProbe {
		Main()
	}
	os.Exit(m.Run())
}

// container is a test's stand-in for a container's output: the pipes the shim makes.
type container struct {
	outR, outW, errR, errW *os.File
}

func newContainer(t *testing.T) *container {
	t.Helper()
	c := &container{}
	var err error
	if c.outR, c.outW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if c.errR, c.errW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []*os.File{c.outR, c.outW, c.errR, c.errW} {
			_ = f.Close()
		}
	})
	return c
}

// handOff hands the container's read ends to the shared logger of dir and closes them here, as
// the hand-off process's exit does.
func (c *container) handOff(t *testing.T, dir, path string, limits crilog.Limits) {
	t.Helper()
	if err := handOff(config{path: path, limits: limits, shared: dir}, c.outR, c.errR); err != nil {
		t.Fatalf("handOff: %v", err)
	}
	_ = c.outR.Close()
	_ = c.errR.Close()
}

// daemonOf returns the live shared logger processes of dir.
func daemonOf(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(b), argDaemon+"\x00"+dir+"\x00") {
			continue
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z ") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoDaemon waits (bounded) until dir has no shared logger.
func waitNoDaemon(t *testing.T, dir string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); len(daemonOf(dir)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("shared logger %v of %s still runs after %v", daemonOf(dir), dir, within)
		}
	}
}

// waitExited waits until process pid has exited (gone, or a zombie): its descriptors are closed
// then. Its command line is no sign: a dying process's reads empty before its files are closed.
func waitExited(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(st), ") Z ") || strings.Contains(string(st), ") X ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after %v", pid, within)
		}
	}
}

// killDaemons kills dir's shared loggers at the test's end, whatever happened.
func killDaemons(t *testing.T, dir string) {
	t.Cleanup(func() {
		for _, pid := range daemonOf(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// numbers reads the numbered lines ("n <i>") of the CRI log files at path (rotated ones first).
func numbers(t *testing.T, path string) []int {
	t.Helper()
	files, _ := filepath.Glob(path + ".*")
	slices.Sort(files)
	var out []int
	for _, f := range append(files, path) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), " ", 4)
			if len(parts) != 4 || parts[1] != "stdout" || parts[2] != "F" {
				t.Fatalf("%s: unexpected line %q", f, sc.Text())
			}
			n, err := strconv.Atoi(strings.TrimPrefix(parts[3], "n "))
			if err != nil {
				t.Fatalf("%s: unexpected line %q", f, sc.Text())
			}
			out = append(out, n)
		}
		fh.Close()
	}
	return out
}

// Two containers hand their output to one shared logger, started by the first hand-off. A
// container that writes from before its hand-off to after it (the pipe holds what it wrote
// meanwhile) has every line in its log, in order, across rotations; each log has its own
// lines. The shared logger exits once both outputs have ended and it has been idle.
func TestSharedLoggerHandOff(t *testing.T) {
	dir := t.TempDir()
	killDaemons(t, dir)
	limits := crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 50}
	const lines = 20000
	var paths []string
	var writers []chan error
	for i := range 2 {
		c := newContainer(t)
		path := filepath.Join(dir, fmt.Sprintf("c%d", i), "0.log")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		done := make(chan error, 1)
		writers = append(writers, done)
		// Writing starts before the hand-off: a full pipe blocks the writer until the
		// shared logger reads.
		go func() {
			w := bufio.NewWriter(c.outW)
			for n := 1; n <= lines; n++ {
				if _, err := fmt.Fprintf(w, "n %d\n", n); err != nil {
					done <- err
					return
				}
			}
			err := w.Flush()
			_ = c.outW.Close()
			_ = c.errW.Close()
			done <- err
		}()
		c.handOff(t, dir, path, limits)
		if pids := daemonOf(dir); len(pids) != 1 {
			t.Fatalf("shared loggers of %s: %v, want one", dir, pids)
		}
	}
	for _, done := range writers {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("write: %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the writer blocked: the shared logger does not read its output")
		}
	}
	// Both outputs have ended: the shared logger finishes them and exits.
	waitNoDaemon(t, dir, daemonIdle+30*time.Second)
	for _, path := range paths {
		got := numbers(t, path)
		if len(got) != lines {
			t.Fatalf("%s: %d lines, want %d", path, len(got), lines)
		}
		for i, n := range got {
			if n != i+1 {
				t.Fatalf("%s: line %d is %d: output lost or out of order", path, i+1, n)
			}
		}
		if rotated, _ := filepath.Glob(path + ".*"); len(rotated) == 0 {
			t.Errorf("%s: not rotated", path)
		}
	}
}

// When the shared logger dies, what the containers see is a broken pipe: a write fails with
// EPIPE (a process that does not handle SIGPIPE dies of it, and its restart hands its new
// output to a new shared logger). The next hand-off starts a new one, which writes the new
// output.
func TestSharedLoggerKilled(t *testing.T) {
	dir := t.TempDir()
	killDaemons(t, dir)
	limits := crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 2}
	first := newContainer(t)
	path := filepath.Join(dir, "0.log")
	first.handOff(t, dir, path, limits)
	pids := daemonOf(dir)
	if len(pids) != 1 {
		t.Fatalf("shared loggers: %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExited(t, pids[0], 30*time.Second)
	// The pipe's last read end may close a moment after the process is seen gone (its fds are
	// released by the kernel's exit path): write until the write fails, within a bound.
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err = first.outW.Write([]byte("n 1\n")); err != nil || time.Now().After(deadline) {
			break
		}
	}
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write after the shared logger died: %v, want EPIPE", err)
	}

	second := newContainer(t)
	path2 := filepath.Join(dir, "1.log")
	second.handOff(t, dir, path2, limits)
	if pids2 := daemonOf(dir); len(pids2) != 1 || pids2[0] == pids[0] {
		t.Fatalf("shared loggers after the kill: %v, want a new one", pids2)
	}
	if _, err := second.outW.Write([]byte("n 1\nn 2\n")); err != nil {
		t.Fatal(err)
	}
	_ = second.outW.Close()
	_ = second.errW.Close()
	waitNoDaemon(t, dir, daemonIdle+30*time.Second)
	if got := numbers(t, path2); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("the new output's log: %v, want [1 2]", got)
	}
}

// Hand-offs racing to start the shared logger end with one.
func TestSharedLoggerConcurrentStart(t *testing.T) {
	dir := t.TempDir()
	killDaemons(t, dir)
	limits := crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 2}
	const n = 8
	cs := make([]*container, n)
	for i := range cs {
		cs[i] = newContainer(t)
	}
	errs := make(chan error, n)
	for i, c := range cs {
		go func() {
			errs <- handOff(config{path: filepath.Join(dir, fmt.Sprintf("%d.log", i)), limits: limits, shared: dir}, c.outR, c.errR)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("handOff: %v", err)
		}
	}
	if pids := daemonOf(dir); len(pids) != 1 {
		t.Fatalf("shared loggers: %v, want one", pids)
	}
	for i, c := range cs {
		_ = c.outR.Close()
		_ = c.errR.Close()
		fmt.Fprintf(c.outW, "n %d\n", i)
		_ = c.outW.Close()
		_ = c.errW.Close()
	}
	waitNoDaemon(t, dir, daemonIdle+30*time.Second)
	for i := range cs {
		if got := numbers(t, filepath.Join(dir, fmt.Sprintf("%d.log", i))); !slices.Equal(got, []int{i}) {
			t.Errorf("log %d: %v", i, got)
		}
	}
}

// The probe tells a logger that knows the shared logger from an older one (or a program that is
// not a logger), which would fail on its argument.
func TestSupportsShared(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !SupportsShared(t.Context(), exe) {
		t.Errorf("this test binary (a logger, see TestMain) not taken for one that knows the shared logger")
	}
	if SupportsShared(t.Context(), "/bin/true") {
		t.Error("/bin/true taken for a logger that knows the shared logger")
	}
}

func TestShimsSignalByPidfd(t *testing.T) {
	for v, want := range map[string]bool{"2.4.2+unknown": true, "v2.0.0": true, "v1.6.20": false, "1.7.27": false, "": false, "dev": false} {
		if got := ShimsSignalByPidfd(v); got != want {
			t.Errorf("ShimsSignalByPidfd(%q) = %v, want %v", v, got, want)
		}
	}
}
