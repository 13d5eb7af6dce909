package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// Environment of a re-executed test binary that calls Ensure once, prints the Info as JSON and
// exits: a short-lived process that may start the daemon, as a CLI command would.
const (
	ensureDirEnv = "PLT_DAEMON_TEST_ENSURE_DIR"
	ensureBinEnv = "PLT_DAEMON_TEST_ENSURE_BIN"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(ensureDirEnv); dir != "" {
		info, err := daemon.Ensure(context.Background(), daemon.Config{Dir: dir, Binary: os.Getenv(ensureBinEnv)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_ = json.NewEncoder(os.Stdout).Encode(info)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// ensureInChild runs Ensure in a new process that exits right after. The child also inherits
// a pipe as fd 3, as a process may from its parent (a shell, a CI runner): a daemon it starts
// must not keep it, or whoever reads that pipe waits as long as the daemon runs.
func ensureInChild(dir, bin string) (daemon.Info, error) {
	self, err := os.Executable()
	if err != nil {
		return daemon.Info{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return daemon.Info{}, err
	}
	defer r.Close()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), ensureDirEnv+"="+dir, ensureBinEnv+"="+bin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Run()
	_ = w.Close()
	if err != nil {
		return daemon.Info{}, fmt.Errorf("%w: %s", err, errOut.String())
	}
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		return daemon.Info{}, fmt.Errorf("the inherited pipe is still open after the child exited (held by the daemon?): %v", err)
	}
	var info daemon.Info
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		return daemon.Info{}, fmt.Errorf("%w: %q", err, out.String())
	}
	return info, nil
}

// procStat returns the fields of /proc/PID/stat after the command name: [0] is the state, [3]
// the session id.
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	return strings.Fields(string(b[i+1:])), true
}

// running reports whether pid exists and is not a zombie. (PID 1 on this VM does not reap
// orphans: a daemon whose starter is gone stays a zombie after it exits.)
func running(pid int) bool {
	f, ok := procStat(pid)
	return ok && f[0] != "Z" && f[0] != "X"
}

// waitFor polls cond (state of another process, which has no event to wait on) for at most a
// generous bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Several short-lived processes call Ensure at once on one directory: exactly one starts
// containerd, all get the same one, and it keeps serving after all of them have exited. Then it
// is SIGKILLed and Ensure starts it again on the same root (a namespace created before is still
// there); the process that started it reaps it when it dies; Shutdown honours its check, stops
// it and leaves nothing running.
func TestEnsureShared(t *testing.T) {
	for name, bin := range containerds(t) {
		t.Run(name, func(t *testing.T) {
			dir := tempDir(t)
			t.Cleanup(func() {
				_ = daemon.Shutdown(context.Background(), dir, nil)
				for _, pid := range podlifetest.Processes(podlifetest.DaemonArgs(dir)) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})

			const n = 4
			infos := make([]daemon.Info, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			begin := time.Now()
			for i := range n {
				wg.Go(func() { infos[i], errs[i] = ensureInChild(dir, bin) })
			}
			wg.Wait()
			t.Logf("%d concurrent Ensure in child processes took %v", n, time.Since(begin))
			started := 0
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("Ensure in child %d: %v", i, errs[i])
				}
				if infos[i].Started {
					started++
				}
				if infos[i].PID == 0 || infos[i].PID != infos[0].PID {
					t.Errorf("child %d got pid %d, child 0 pid %d: want one daemon", i, infos[i].PID, infos[0].PID)
				}
			}
			if started != 1 {
				t.Errorf("%d of %d Ensure calls started containerd, want exactly 1: %+v", started, n, infos)
			}
			pid := infos[0].PID
			if got := podlifetest.Processes(podlifetest.DaemonArgs(dir)); len(got) != 1 || got[0] != pid {
				t.Fatalf("containerd processes of %s: %v, want only %d", dir, got, pid)
			}

			// Every starter has exited: the daemon still serves, in a session of its own.
			if !running(pid) {
				t.Fatalf("containerd %d is gone after its starter exited", pid)
			}
			if f, _ := procStat(pid); f[3] != strconv.Itoa(pid) {
				t.Errorf("containerd %d is in session %s, want its own", pid, f[3])
			}
			info, err := daemon.Lookup(dir)
			if err != nil || info.PID != pid || info.Address != daemon.Address(dir) {
				t.Fatalf("Lookup = %+v, %v; want pid %d", info, err, pid)
			}
			ctx := t.Context()
			c, err := client.New(info.Address)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if ok, err := c.IsServing(ctx); !ok || err != nil {
				t.Fatalf("IsServing after the starters exited: %v %v", ok, err)
			}
			logFile := filepath.Join(dir, "containerd.log")
			if b, err := os.ReadFile(logFile); err != nil || !bytes.Contains(b, []byte("--- podlife: pid")) || !bytes.Contains(b, []byte("serving")) {
				t.Errorf("log file %s: %v\n%s", logFile, err, b)
			}

			// In this process too: found, not started.
			if info, err := daemon.Ensure(ctx, daemon.Config{Dir: dir, Binary: bin}); err != nil || info.Started || info.PID != pid {
				t.Errorf("Ensure with the daemon up = %+v, %v; want pid %d, not started", info, err, pid)
			}

			// Killed: the next Ensure starts it again on the same root and state.
			ns := fmt.Sprintf("plt-keep-%d", os.Getpid())
			if err := c.NamespaceService().Create(namespaces.WithNamespace(ctx, ns), ns, map[string]string{"kept": "yes"}); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the killed containerd to exit", func() bool { return !running(pid) })
			info, err = daemon.Ensure(ctx, daemon.Config{Dir: dir, Binary: bin})
			if err != nil {
				t.Fatalf("Ensure after the daemon died: %v", err)
			}
			if !info.Started || info.PID == pid || info.PID == 0 {
				t.Errorf("Ensure after the daemon died = %+v, want a new daemon started", info)
			}
			labels, err := c.NamespaceService().Labels(ctx, ns)
			if err != nil || labels["kept"] != "yes" {
				t.Errorf("namespace %s after the restart: %v %v, want it kept (same root)", ns, labels, err)
			}

			// This process started it: when it dies, it is reaped (no zombie left).
			pid = info.PID
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the killed containerd to be reaped by its starter", func() bool {
				_, exists := procStat(pid)
				return !exists
			})

			// Shutdown: the check can refuse; then it stops, whoever started it.
			if info, err = ensureInChild(dir, bin); err != nil || !info.Started {
				t.Fatalf("Ensure in a child = %+v, %v, want started", info, err)
			}
			pid = info.PID
			errBusy := errors.New("busy")
			var checked string
			if err := daemon.Shutdown(ctx, dir, func(_ context.Context, addr string) error {
				checked = addr
				return errBusy
			}); !errors.Is(err, errBusy) {
				t.Errorf("Shutdown with a failing check = %v, want its error", err)
			}
			if checked != daemon.Address(dir) || !running(pid) {
				t.Errorf("check got %q; daemon running %v: want the address, and it kept running", checked, running(pid))
			}
			begin = time.Now()
			if err := daemon.Shutdown(ctx, dir, nil); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			t.Logf("Shutdown took %v", time.Since(begin))
			if running(pid) {
				t.Errorf("containerd %d still runs after Shutdown", pid)
			}
			for _, f := range []string{"containerd.sock", "containerd.sock.ttrpc", "containerd.pid"} {
				if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left after Shutdown: %v", f, err)
				}
			}
			if _, err := daemon.Lookup(dir); !errors.Is(err, daemon.ErrNotRunning) {
				t.Errorf("Lookup after Shutdown = %v, want ErrNotRunning", err)
			}
			if err := daemon.Shutdown(ctx, dir, nil); !errors.Is(err, daemon.ErrNotRunning) {
				t.Errorf("second Shutdown = %v, want ErrNotRunning", err)
			}
			if got := podlifetest.Processes(podlifetest.DaemonArgs(dir)); len(got) != 0 {
				t.Errorf("containerd processes left: %v", got)
			}
		})
	}
}

// Ensure reports a daemon that exits at once with the end of its log, and leaves no PID file.
func TestEnsureExitsEarly(t *testing.T) {
	dir := tempDir(t)
	script := filepath.Join(dir, "fail")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho cannot start >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := daemon.Ensure(t.Context(), daemon.Config{Binary: script, Dir: dir})
	if !errors.Is(err, daemon.ErrExited) || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("Ensure with a failing binary = %v, want ErrExited quoting its output", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "containerd.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PID file left: %v", err)
	}
}

// Start (a child daemon) and Ensure share the start lock and find each other's daemon.
func TestStartThenEnsure(t *testing.T) {
	for name, bin := range containerds(t) {
		t.Run(name, func(t *testing.T) {
			dir := tempDir(t)
			d, err := daemon.Start(t.Context(), daemon.Config{Binary: bin, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = d.Stop(context.Background()) })
			info, err := daemon.Ensure(t.Context(), daemon.Config{Binary: bin, Dir: dir})
			if err != nil || info.Started || info.PID != d.PID() {
				t.Errorf("Ensure with a child daemon up = %+v, %v; want it found (pid %d)", info, err, d.PID())
			}
		})
	}
}
