package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C stops the pods gracefully: preStop runs, then the stop signal; the command exits with
// the pods' outcome.
func TestRunCtrlCRunsPreStop(t *testing.T) {
	dir := cliTestDir(t)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o777); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: cli-serve
spec:
  terminationGracePeriodSeconds: 10
  volumes:
  - name: out
    hostPath: {path: %s, type: Directory}
  containers:
  - name: serve
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "trap 'echo term >> /out/log; exit 0' TERM; while :; do sleep 0.1; done"]
    volumeMounts: [{name: out, mountPath: /out}]
    lifecycle:
      preStop:
        exec:
          command: ["/bin/sh", "-c", "echo prestop >> /out/log"]
`, out)), 0o600); err != nil {
		t.Fatal(err)
	}
	bridge := fmt.Sprintf("plsig%d", os.Getpid()%100000)
	defer exec.Command("ip", "link", "del", bridge).Run() //nolint:errcheck
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run([]string{"-f", manifest, "--busybox", "podlife.cli/busybox:1", "--state-dir", filepath.Join(dir, "state"),
			"--bridge", bridge, "--subnet", fmt.Sprintf("10.%d.%d.0/24", 90+os.Getpid()%50, os.Getpid()%250)}, pw, &stderr)
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	running := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "1/1") && strings.Contains(sc.Text(), "Running") {
			running = true
			break
		}
	}
	if !running {
		t.Fatalf("the pod never ran; stderr:\n%s", stderr.String())
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck
	// run installed its handler before starting the pod: this Ctrl-C goes to it.
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, want 0: the pod's process exited 0 on SIGTERM (Succeeded); stderr:\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("run did not return after Ctrl-C")
	}
	b, _ := os.ReadFile(filepath.Join(out, "log"))
	if got := strings.Fields(string(b)); len(got) != 2 || got[0] != "prestop" || got[1] != "term" {
		t.Errorf("log %q, want preStop then the stop signal", b)
	}
}
