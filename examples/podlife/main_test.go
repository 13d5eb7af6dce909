package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

const jobManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-job
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers:
  - name: job
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "echo done"]
    lifecycle:
      preStop:
        exec:
          command: ["/bin/true"]
`

// cliTestDir skips unless the CLI can run here with the private containerd of its state dir
// (root, containerd in PATH), and returns a short temporary directory removed at the end of
// the test. Without a system socket the CLI starts it as the embedded default; where a system
// containerd's socket exists, the test's commands get --private-containerd (through
// PODLIFE_PRIVATE_CONTAINERD, which the programs they start inherit), and the test fails if
// the system daemon's namespaces or containers change: these tests never touch a daemon they
// did not start.
func cliTestDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	// The containerd the test run names (make test: the 2.x it built), first in PATH for the
	// programs the test starts, so that they do not start Debian's 1.6 from /usr/bin.
	if bin := os.Getenv("PODLIFE_TEST_CONTAINERD"); bin != "" {
		t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if _, err := exec.LookPath("containerd"); err != nil {
		t.Skip("no containerd in PATH")
	}
	if _, err := os.Stat(podlife.DefaultAddress); err == nil {
		t.Setenv(daemon.PrivateEnv, "1")
		podlifetest.KeepSystemContainerd(t, podlife.DefaultAddress)
	}
	dir, err := os.MkdirTemp("", "plt-cli")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The private containerd belongs to its state dir and outlives the CLI processes: stop
		// every one a test started under dir, then fail on any process still running from it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dirs, _ := filepath.Glob(filepath.Join(dir, "*", "containerd"))
		for _, d := range dirs {
			if err := daemon.Shutdown(ctx, d, nil); err != nil && !errors.Is(err, daemon.ErrNotRunning) {
				t.Errorf("stop the private containerd of %s: %v", d, err)
			}
		}
		for _, pid := range podlifetest.ProcessesWithin(dir, 15*time.Second) {
			t.Errorf("leak: process %d still runs from %s: %s", pid, dir, procCmdline(pid))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		// The networks the CLI made keep their masquerade rule (and localnet guard) until
		// destroyed, which the CLI never does.
		if err := podlifetest.RemoveNetworkRules(dir); err != nil {
			t.Error(err)
		}
		os.RemoveAll(dir)
	})
	return dir
}

// run -f with -o json: events as JSON lines, the final PodStatus, exit 0 for a succeeded pod.
// It uses the private containerd of its state dir (see cliTestDir).
func TestRunJSON(t *testing.T) {
	dir := cliTestDir(t)
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(jobManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	bridge := fmt.Sprintf("plcli%d", os.Getpid()%100000)
	defer exec.Command("ip", "link", "del", bridge).Run() //nolint:errcheck
	code := run([]string{"-f", manifest, "-o", "json", "--logs", "--busybox", "podlife.cli/busybox:1", "--state-dir", filepath.Join(dir, "state"),
		"--bridge", bridge, "--subnet", fmt.Sprintf("10.%d.%d.0/24", 40+os.Getpid()%50, os.Getpid()%250)}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var seen []podlife.Reason
	var logs []string
	var final podlife.PodStatus
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		if string(line["kind"]) == `"Log"` {
			logs = append(logs, string(line["line"]))
			continue
		}
		if string(line["kind"]) == `"PodStatus"` {
			if err := json.Unmarshal(line["status"], &final); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var e podlife.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Pod != "cli-job" {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		seen = append(seen, e.Reason)
	}
	if final.Phase != podlife.PhaseSucceeded || final.ContainerStatuses[0].State.Terminated == nil {
		t.Errorf("final status %+v, want Succeeded with the container terminated", final)
	}
	if len(logs) != 1 || logs[0] != `"cli-job/job | done"` {
		t.Errorf("streamed logs %q, want the job's one line with its prefix", logs)
	}
	want := []podlife.Reason{reasons.Created, reasons.Started, reasons.Exited, reasons.Stopped, reasons.Removed}
	i := 0
	for _, r := range seen {
		if i < len(want) && r == want[i] {
			i++
		}
	}
	if i != len(want) {
		t.Errorf("events %v, want %v in that order", seen, want)
	}
}

// procCmdline returns a process's command line, its arguments separated by spaces.
func procCmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
}
