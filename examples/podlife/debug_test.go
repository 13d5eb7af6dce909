package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/podlife/podlife/podlife/podlifetest"
)

const debugManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-debug
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "mkdir -p /www && echo served-by-web > /www/index.html && trap 'exit 0' TERM; httpd -f -p 8080 -h /www & wait"]
  - name: target
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "trap 'exit 0' TERM; x=target-marker; while :; do sleep 0.1; done"]
`

// debug against a pod a background supervisor manages, from another process: the debug
// container sees the target's processes (and not the other container's), reaches the pod's
// 127.0.0.1, its output is printed and its exit code is the command's; with --detach it keeps
// running and exec -i gives a shell in it; ps shows them among the ephemeral containers, logs
// prints their log, and rm removes them with the pod.
func TestDebugDetachedPod(t *testing.T) {
	dir := cliTestDir(t)
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(debugManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	state := filepath.Join(dir, "state")
	bridge := fmt.Sprintf("pldbg%d", os.Getpid()%100000)
	subnet := fmt.Sprintf("10.%d.%d.0/24", 190+os.Getpid()%50, os.Getpid()%250)
	network := fmt.Sprintf("pldbg-%d", os.Getpid())
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", state}}
	stdout, supervisor := c.runDetached("cli-debug", bridge, syscall.SIGTERM, "-f", manifest, "--busybox", "podlife.cli/busybox:1",
		"--network", network, "--bridge", bridge, "--subnet", subnet)
	if !strings.Contains(stdout, "pod/cli-debug started") {
		t.Fatalf("run --detach printed %q, want pod/cli-debug started", stdout)
	}
	c.waitPS("both containers running", func(l podList) bool {
		if len(l.Items) != 1 {
			return false
		}
		cs := l.Items[0].Status.ContainerStatuses
		return len(cs) == 2 && cs[0].State.Running != nil && cs[1].State.Running != nil
	})

	if _, e, code := c.run("debug", "cli-debug", "--target", "target"); code != 2 || !strings.Contains(e, "--image is required") {
		t.Errorf("debug without --image: exit %d, %q", code, e)
	}
	got, e, code := c.run("debug", "cli-debug", "--image", "podlife.cli/busybox:1", "--target", "target", "--name", "dbg", "--",
		"/bin/sh", "-c", "ps -o args; wget -q -O - http://127.0.0.1:8080/; exit 4")
	if code != 4 || !strings.Contains(e, "container dbg exited with code 4") {
		t.Errorf("debug: exit %d, stderr %q; want the command's 4", code, e)
	}
	if !strings.Contains(got, "x=target-marker") || !strings.Contains(got, "served-by-web\n") || strings.Contains(got, "httpd") {
		t.Errorf("debug output, want the target's processes only and the page web serves on 127.0.0.1:\n%s", got)
	}
	// A default name, and the image's shell (sh without a terminal exits at once, 0).
	if _, e, code := c.run("debug", "--image", "podlife.cli/busybox:1", "cli-debug"); code != 0 || !regexp.MustCompile(`Defaulting debug container name to debugger-[a-z2-7]{5}\.`).MatchString(e) {
		t.Errorf("debug with defaults: exit %d, %q", code, e)
	}
	if _, e, code := c.run("debug", "cli-debug", "--image", "podlife.cli/busybox:1", "--name", "dbg"); code != 1 || !strings.Contains(e, `Duplicate value: "dbg"`) {
		t.Errorf("debug with a name taken: exit %d, %q", code, e)
	}
	// --detach, then a shell in it with exec -i: it sees the target's processes.
	if got, e, code := c.run("debug", "cli-debug", "--image", "podlife.cli/busybox:1", "--target", "target", "--name", "keep", "--detach", "--",
		"/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.1; done"); code != 0 || got != "pod/cli-debug ephemeral container keep started\n" {
		t.Errorf("debug --detach: exit %d, %q, %q", code, got, e)
	}
	cmd := exec.Command(bin, "exec", "--state-dir", state, "-i", "cli-debug", "keep", "--", "/bin/sh")
	cmd.Stdin = strings.NewReader("ps -o args; exit 5\n")
	b, err := cmd.Output()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 5 || !strings.Contains(string(b), "x=target-marker") {
		t.Errorf("exec -i in the detached debug container: %v, %q", err, b)
	}
	checkExecTTY(t, bin, state, "cli-debug", "target")
	checkDebugTTY(t, bin, state, "cli-debug", "podlife.cli/busybox:1", "target", "x=target-marker")
	// -t without a terminal on this side: kubectl's warning, then the command without one.
	if got, e, code := c.run("exec", "-ti", "cli-debug", "target", "--", "/bin/sh", "-c", "tty; echo ran"); code != 0 || got != "not a tty\nran\n" || !strings.Contains(e, "Unable to use a TTY") {
		t.Errorf("exec -ti without a terminal: exit %d, %q, %q", code, got, e)
	}
	l := c.waitPS("the debug containers in ephemeralContainerStatuses", func(l podList) bool {
		return len(l.Items) == 1 && len(l.Items[0].Status.EphemeralContainerStatuses) == 4 &&
			l.Items[0].Status.EphemeralContainerStatuses[0].State.Terminated != nil
	})
	st := l.Items[0].Status
	if cs := st.EphemeralContainerStatuses[0]; cs.Name != "dbg" || cs.State.Terminated.ExitCode != 4 || cs.RestartCount != 0 {
		t.Errorf("dbg's status %+v", cs)
	}
	if st.Phase != "Running" {
		t.Errorf("pod %s after its debug containers exited, want Running", st.Phase)
	}
	if got, e, code := c.run("logs", "cli-debug", "dbg"); code != 0 || !strings.Contains(got, "served-by-web") {
		t.Errorf("logs dbg: exit %d, %q, %q", code, got, e)
	}

	if got, e, code := c.run("rm", "cli-debug"); code != 0 || got != "pod/cli-debug removed\n" {
		t.Fatalf("rm: exit %d, %q, %q", code, got, e)
	}
	waitGone(t, supervisor)
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
}
