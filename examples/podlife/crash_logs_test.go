package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/podlifetest"
)

// chattyManifest is a pod whose container prints numbered lines of about 210 bytes as fast as
// it can and writes the number of the last one to a hostPath file (its heartbeat).
const chattyManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-chatty
spec:
  terminationGracePeriodSeconds: 2
  volumes:
  - name: marks
    hostPath: {path: %s, type: Directory}
  containers:
  - name: app
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", %q]
    volumeMounts: [{name: marks, mountPath: /marks}]
`

var chattyCommand = `trap 'exit 0' TERM; p=` + strings.Repeat("x", 200) +
	`; i=0; while :; do i=$((i+1)); echo "line $i $p"; echo $i > /marks/beat; done`

// linesPerMiB is how many of the chatty container's lines make 1 MiB of output: many pipe
// buffers (64 KiB) more than a container whose output still went through its dead manager can
// print before it blocks.
const linesPerMiB = 1<<20/210 + 1

// A detached supervisor is SIGKILLed while its container prints steadily. With the shim-side
// logger (the default: the CLI is its own logger), the container goes on: its heartbeat
// advances by more than 1 MiB of output, and `podlife logs` and `podlife logs -f`, from other
// processes, show the lines printed since. With --container-logger none (the supervisor wrote
// the logs), the container blocks soon after the kill: the documented fallback. Either way rm
// removes the unmanaged pod whole.
func TestChattyPodOutlivesKilledSupervisor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logger string
	}{{"logger", ""}, {"fallback", "none"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cliTestDir(t)
			marks := filepath.Join(dir, "marks")
			if err := os.Mkdir(marks, 0o777); err != nil {
				t.Fatal(err)
			}
			manifest := filepath.Join(dir, "pod.yaml")
			if err := os.WriteFile(manifest, []byte(fmt.Sprintf(chattyManifest, marks, chattyCommand)), 0o600); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "podlife")
			if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, b)
			}
			state := filepath.Join(dir, "state")
			n := os.Getpid() % 100000
			bridge, network := fmt.Sprintf("plchat%d", n), fmt.Sprintf("plchat-%d", n)
			subnet := fmt.Sprintf("10.%d.%d.0/24", 200+os.Getpid()%50, os.Getpid()%250)
			c := cliProc{t: t, bin: bin, common: []string{"--state-dir", state}}
			args := []string{"-f", manifest, "--busybox", "podlife.cli/busybox:1",
				"--network", network, "--bridge", bridge, "--subnet", subnet}
			if tc.logger != "" {
				args = append(args, "--container-logger", tc.logger)
			}
			_, supervisor := c.runDetached("cli-chatty", bridge, syscall.SIGKILL, args...)
			c.waitPS("the container running", func(l podList) bool {
				return len(l.Items) == 1 && len(l.Items[0].Status.ContainerStatuses) == 1 &&
					l.Items[0].Status.ContainerStatuses[0].State.Running != nil
			})
			for deadline := time.Now().Add(time.Minute); beat(t, marks) == 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no heartbeat")
				}
			}

			// The manager dies.
			if err := syscall.Kill(supervisor, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitGone(t, supervisor)
			b0 := beat(t, marks)
			target := b0 + linesPerMiB

			if tc.logger == "none" {
				// The heartbeat stops: the container blocks on its full stdout within a few
				// pipe buffers of output, and stays blocked.
				still := waitStill(t, marks, 2*time.Second, time.Minute)
				if still >= target {
					t.Errorf("heartbeat went from %d to %d after the kill: the fallback did not block", b0, still)
				}
				t.Logf("fallback: the heartbeat stopped at %d, %d lines (about %d KiB) after the kill", still, still-b0, (still-b0)*210>>10)
			} else {
				// logs -f from another process, started now, follows the lines printed meanwhile.
				follow := exec.Command(bin, "logs", "-f", "--state-dir", state, "cli-chatty")
				out, err := follow.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := follow.Start(); err != nil {
					t.Fatal(err)
				}
				followed := make(chan int, 1)
				go func() {
					last := 0
					sc := bufio.NewScanner(out)
					for sc.Scan() {
						if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "line" {
							last, _ = strconv.Atoi(f[1])
							if last >= target {
								break
							}
						}
					}
					followed <- last
				}()
				for deadline := time.Now().Add(2 * time.Minute); beat(t, marks) < target; time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("heartbeat stuck at %d after the kill (was %d): the container's output blocks", beat(t, marks), b0)
					}
				}
				select {
				case last := <-followed:
					if last < target {
						t.Errorf("logs -f ended at line %d, want at least %d", last, target)
					}
				case <-time.After(time.Minute):
					t.Errorf("logs -f never printed line %d", target)
				}
				_ = follow.Process.Kill()
				_ = follow.Wait()
				// logs, from another process: the newest lines, printed after the kill.
				got, e, code := c.run("logs", "cli-chatty")
				lines := strings.Split(strings.TrimSpace(got), "\n")
				f := strings.Fields(lines[len(lines)-1])
				if n, _ := strconv.Atoi(f[min(1, len(f)-1)]); code != 0 || n < target {
					t.Errorf("logs: exit %d (%s), last line %.40q, want one numbered at least %d", code, e, lines[len(lines)-1], target)
				}
			}

			// The unmanaged pod is removed whole, the logger with it.
			if got, e, code := c.run("rm", "--grace-period", "1", "cli-chatty"); code != 0 || got != "pod/cli-chatty removed\n" {
				t.Fatalf("rm: exit %d, %q, %q", code, got, e)
			}
			if r := c.exec("daemon", "stop"); r.code != 0 {
				t.Errorf("daemon stop: %v", r)
			}
			if procs := processesLeft(state); len(procs) > 0 {
				t.Errorf("processes left using %s: %v", state, procs)
			}
			leaks, err := podlifetest.HostLeaks(state, bridge, network, filepath.Join(state, "cni", "ipam"))
			if err != nil || len(leaks) > 0 {
				t.Errorf("host leaks: %v %v", leaks, err)
			}
		})
	}
}

// beat reads the chatty container's heartbeat (0 until it has written one).
func beat(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "beat"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// waitStill waits (at most limit) until the heartbeat has not moved for quiet, and returns it.
func waitStill(t *testing.T, dir string, quiet, limit time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	last, since := beat(t, dir), time.Now()
	for time.Since(since) < quiet {
		if time.Now().After(deadline) {
			t.Fatalf("the heartbeat never stopped (at %d)", last)
		}
		time.Sleep(100 * time.Millisecond)
		if b := beat(t, dir); b != last {
			last, since = b, time.Now()
		}
	}
	return last
}
