package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every spelling of --detach the flag package accepts starts exactly one background supervisor:
// the supervisor gets its arguments from the parsed flags, without -detach, and never detaches
// again. The manifest is missing, so the supervisor fails at once and says so (no root needed).
// Each supervisor opens one run-*.log in the state dir, so the logs count the supervisors.
func TestDetachSpellingsForkOnce(t *testing.T) {
	dir, err := os.MkdirTemp("", "plt-dt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	// Every process of this test carries the marker in its environment, whoever started it.
	marker := "PODLIFE_TEST_DETACH_MARK=" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Cleanup(func() { killMarked(marker) })
	missing := filepath.Join(dir, "missing.yaml")
	for i, spelling := range []string{"--detach=1", "-detach=t", "--detach=TRUE", "--detach", "-detach=true"} {
		state := filepath.Join(dir, "state"+strconv.Itoa(i))
		cmd := exec.Command(bin, "run", spelling, "--state-dir", state, "-f", missing, "-o", "")
		cmd.Env = append(os.Environ(), marker)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			// The generous bound of a fork bomb: the first supervisor waits for its own child.
			killMarked(marker)
			<-done
			logs, _ := filepath.Glob(filepath.Join(state, "run-*.log"))
			t.Fatalf("run %s never returned; %d supervisors started", spelling, len(logs))
		}
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "missing.yaml") {
			t.Errorf("run %s: exit %d, stderr %q; want 1 and the supervisor's error about the manifest", spelling, code, stderr.String())
		}
		if logs, _ := filepath.Glob(filepath.Join(state, "run-*.log")); len(logs) != 1 {
			t.Errorf("run %s started %d supervisors, want 1", spelling, len(logs))
		}
		if left := marked(marker); len(left) > 0 {
			t.Errorf("run %s left processes %v", spelling, left)
		}
	}
}

// killMarked ends the processes of a fork bomb, each in its own session, one by one until none
// is left (a process may start another while the others are killed).
func killMarked(marker string) {
	for range 100 {
		pids := marked(marker)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// marked lists the processes whose environment holds the marker.
func marked(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(b, []byte(marker+"\x00")) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
