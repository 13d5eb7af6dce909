package daemon_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// v2Containerd returns the containerd 2.x binary of the tests, or skips.
func v2Containerd(t *testing.T) string {
	t.Helper()
	bin, ok := containerds(t)["v2"]
	if !ok {
		t.Skip("no containerd 2.x binary")
	}
	return bin
}

// fakeStuckDaemon starts a process whose command line is that of dir's daemon (--config
// DIR/config.toml) but that never serves and exits after life: what a starter SIGKILLed halfway
// through Ensure can leave behind (a daemon that hangs, or one still loading). It returns the
// process and a channel closed, with the time, once it has exited (and been reaped).
func fakeStuckDaemon(t *testing.T, dir string, life time.Duration) (*exec.Cmd, <-chan time.Time) {
	t.Helper()
	script := "sleep " + strconv.FormatFloat(life.Seconds(), 'f', 3, 64) + "; true"
	cmd := exec.Command("/bin/sh", "-c", script, "sh", "--config", filepath.Join(dir, "config.toml"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	done := make(chan time.Time, 1)
	go func() {
		_ = cmd.Wait()
		done <- time.Now()
	}()
	return cmd, done
}

// cleanupDaemons stops whatever containerd runs for dir at the end of the test.
func cleanupDaemons(t *testing.T, dir string) {
	t.Cleanup(func() {
		_ = daemon.Shutdown(context.Background(), dir, nil)
		for _, pid := range podlifetest.Processes(podlifetest.DaemonArgs(dir)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// A PID file names a live process of the directory's daemon that never serves (its starter was
// SIGKILLed while it loaded, and it hangs), and it then dies. Ensure must not start a second
// daemon while it lives, and must not wait out its whole timeout after it died either: it starts
// a new one as soon as the old one is gone.
func TestEnsureAfterStuckDaemonDies(t *testing.T) {
	bin := v2Containerd(t)
	dir := tempDir(t)
	cleanupDaemons(t, dir)
	const life = time.Second
	fake, exited := fakeStuckDaemon(t, dir, life)
	if err := os.WriteFile(filepath.Join(dir, "containerd.pid"), []byte(strconv.Itoa(fake.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()
	begin := time.Now()
	info, err := daemon.Ensure(ctx, daemon.Config{Dir: dir, Binary: bin})
	took := time.Since(begin)
	if err != nil {
		t.Fatalf("Ensure after the stuck daemon died: %v (took %v)", err, took)
	}
	gone := <-exited
	if !info.Started || info.PID == fake.Process.Pid {
		t.Errorf("Ensure = %+v, want a new daemon started", info)
	}
	if end := begin.Add(took); end.Before(gone) {
		t.Errorf("Ensure returned at %v, before the stuck daemon exited at %v: two daemons on one root", end, gone)
	}
	if took > 15*time.Second {
		t.Errorf("Ensure took %v, want it to start a daemon soon after the stuck one (alive %v) died", took, life)
	}
	t.Logf("Ensure took %v (stuck daemon alive %v)", took, life)
}

// The starter was SIGKILLed between starting the daemon and writing its PID file: a daemon of
// the directory runs (still loading) and no PID file names it. Ensure must find it by its
// command line and wait for it, never start a second containerd on the same root.
func TestEnsureDaemonWithoutPIDFile(t *testing.T) {
	bin := v2Containerd(t)
	dir := tempDir(t)
	cleanupDaemons(t, dir)
	const life = time.Second
	_, exited := fakeStuckDaemon(t, dir, life)
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()
	begin := time.Now()
	info, err := daemon.Ensure(ctx, daemon.Config{Dir: dir, Binary: bin})
	end := time.Now()
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	gone := <-exited
	if end.Before(gone) {
		t.Errorf("Ensure returned %v after it began, before the loading daemon without a PID file exited (%v): a second daemon was started on its root (%+v)",
			end.Sub(begin), gone.Sub(begin), info)
	}
}

// A long-lived daemon's log must not grow without bound: the next Ensure that finds it serving
// with a log above the limit moves the content to LogFile.1 and the daemon keeps writing to
// LogFile (it appends, so truncating the file in place is safe).
func TestEnsureRotatesLiveLog(t *testing.T) {
	bin := v2Containerd(t)
	dir := tempDir(t)
	cleanupDaemons(t, dir)
	ctx := t.Context()
	info, err := daemon.Ensure(ctx, daemon.Config{Dir: dir, Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(info.LogFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	filler := bytes.Repeat([]byte("filler line standing for containerd's own log output ....\n"), (17<<20)/58+1)
	if _, err := f.Write(filler); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	again, err := daemon.Ensure(ctx, daemon.Config{Dir: dir, Binary: bin})
	if err != nil || again.Started || again.PID != info.PID {
		t.Fatalf("second Ensure = %+v, %v; want the running daemon %d found", again, err, info.PID)
	}
	st, err := os.Stat(info.LogFile)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 16<<20 {
		t.Errorf("log %s is %d bytes after Ensure found the daemon serving, want it rotated (below 16 MiB)", info.LogFile, st.Size())
	}
	if old, err := os.Stat(info.LogFile + ".1"); err != nil || old.Size() < int64(len(filler)) {
		t.Errorf("rotated log %s.1: %v, want the old content", info.LogFile, err)
	}
	// The daemon still writes to the log file: SIGUSR1 makes containerd dump its goroutines
	// into its log.
	if err := syscall.Kill(info.PID, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	var b []byte
	waitFor(t, "the daemon's stack dump in the rotated log file", func() bool {
		b, _ = os.ReadFile(info.LogFile)
		return bytes.Contains(b, []byte("goroutine stack dump"))
	})
	if bytes.HasPrefix(b, []byte{0}) {
		t.Errorf("log after rotation starts with NUL bytes: the daemon does not append")
	}
}
