package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/podlifetest"
)

const detachedManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-detached
spec:
  terminationGracePeriodSeconds: 5
  readinessGates: [{conditionType: example.com/cli}]
  volumes:
  - name: data
    emptyDir: {}
  - name: out
    hostPath: {path: %s, type: Directory}
  containers:
  - name: web
    image: podlife.cli/busybox:1
    # Crashes on its first attempt, runs on the second: logs --previous has the crash.
    command: ["/bin/sh", "-c", "trap 'exit 0' TERM; echo attempt; if [ ! -f /data/once ]; then touch /data/once; echo crash; exit 1; fi; while :; do sleep 0.1; done"]
    volumeMounts: [{name: data, mountPath: /data}]
  - name: side
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "trap 'echo term >> /out/log; exit 0' TERM; echo side up; while :; do sleep 0.1; done"]
    volumeMounts: [{name: out, mountPath: /out}]
    lifecycle:
      preStop:
        exec:
          command: ["/bin/sh", "-c", "echo prestop >> /out/log"]
`

// cliProc runs the CLI binary as separate processes, as a user would.
type cliProc struct {
	t      *testing.T
	bin    string
	common []string
}

// runDetached runs `podlife run --detach` with args and fails the test unless it exits 0 and
// says which process supervises the pods. Its cleanup (run even when the test failed) removes
// pod, ends the supervisor with stop, stops the private containerd and deletes bridge. It
// returns run's stdout and the supervisor's PID.
func (c cliProc) runDetached(pod, bridge string, stop syscall.Signal, args ...string) (string, int) {
	t := c.t
	t.Helper()
	stdout, stderr, code := c.run(append([]string{"run", "--detach"}, args...)...)
	if code != 0 {
		t.Fatalf("run --detach: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`supervised by pid (\d+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no supervisor pid in %q", stderr)
	}
	supervisor, _ := strconv.Atoi(m[1])
	t.Cleanup(func() {
		c.run("rm", "--grace-period", "0", pod)
		if alive(supervisor) {
			_ = syscall.Kill(supervisor, stop)
			waitGone(t, supervisor)
		}
		c.exec("daemon", "stop")
		_ = exec.Command("ip", "link", "del", bridge).Run()
	})
	return stdout, supervisor
}

func (c cliProc) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, insertFlags(args, c.common)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		c.t.Fatalf("podlife %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// insertFlags puts the common flags right after the command word(s): flags end at the first
// positional argument.
func insertFlags(args, common []string) []string {
	n := 1
	if (args[0] == "image" || args[0] == "daemon") && len(args) > 1 {
		n = 2
	}
	return append(append(append([]string{}, args[:n]...), common...), args[n:]...)
}

func (c cliProc) ps() podList {
	c.t.Helper()
	out, errOut, code := c.run("ps", "-o", "json")
	if code != 0 {
		c.t.Fatalf("ps: exit %d: %s", code, errOut)
	}
	var l podList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		c.t.Fatalf("ps -o json: %v\n%s", err, out)
	}
	return l
}

// waitPS polls `ps -o json` (another process's pods have no event stream to wait on) until
// cond holds, for at most a minute.
func (c cliProc) waitPS(what string, cond func(podList) bool) podList {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		l := c.ps()
		if cond(l) {
			return l
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("ps never showed %s: %+v", what, l)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// run --detach, then ps, logs, logs --previous, exec, stop and rm, each from its own process;
// the background supervisor exits once its pod is removed and nothing is left behind.
func TestDetachedPodAcrossProcesses(t *testing.T) {
	dir := cliTestDir(t)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o777); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(detachedManifest, out)), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	state := filepath.Join(dir, "state")
	bridge := fmt.Sprintf("pldet%d", os.Getpid()%100000)
	subnet := fmt.Sprintf("10.%d.%d.0/24", 140+os.Getpid()%50, os.Getpid()%250)
	network := fmt.Sprintf("pldet-%d", os.Getpid())
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", state}}

	stdout, supervisor := c.runDetached("cli-detached", bridge, syscall.SIGTERM, "-f", manifest, "--busybox", "podlife.cli/busybox:1",
		"--network", network, "--bridge", bridge, "--subnet", subnet, "--restart-backoff", "300ms")
	if !strings.Contains(stdout, "pod/cli-detached started") {
		t.Fatalf("run --detach printed %q, want pod/cli-detached started", stdout)
	}

	// ps from another process: running, the crash restarted once, managed by the supervisor.
	l := c.waitPS("both containers running after web's restart", func(l podList) bool {
		if len(l.Items) != 1 {
			return false
		}
		st := l.Items[0].Status
		return len(st.ContainerStatuses) == 2 && st.ContainerStatuses[0].RestartCount >= 1 &&
			st.ContainerStatuses[0].State.Running != nil && st.ContainerStatuses[1].State.Running != nil
	})
	pod := l.Items[0]
	if pod.Metadata.Name != "cli-detached" || pod.Status.Phase != "Running" || !pod.Status.PodIP.IsValid() {
		t.Errorf("ps item %+v, want cli-detached Running with a pod IP", pod)
	}
	if got := pod.Metadata.Annotations["podlife.io/manager-pid"]; got != strconv.Itoa(supervisor) {
		t.Errorf("manager pid %s, want the supervisor's %d", got, supervisor)
	}
	if ls := pod.Status.ContainerStatuses[0].LastState.Terminated; ls == nil || ls.ExitCode != 1 {
		t.Errorf("web lastState %+v, want terminated with exit 1", pod.Status.ContainerStatuses[0].LastState)
	}
	if table, _, _ := c.run("ps"); !strings.Contains(table, "cli-detached") || !strings.Contains(table, strconv.Itoa(supervisor)) {
		t.Errorf("ps table:\n%s", table)
	}

	// logs and logs --previous.
	if got, e, code := c.run("logs", "cli-detached", "web"); code != 0 || got != "attempt\n" {
		t.Errorf("logs web: exit %d, %q (stderr %q), want the running attempt's one line", code, got, e)
	}
	if got, e, code := c.run("logs", "--previous", "cli-detached", "web"); code != 0 || got != "attempt\ncrash\n" {
		t.Errorf("logs --previous web: exit %d, %q (stderr %q), want the crashed attempt's lines", code, got, e)
	}
	if _, e, code := c.run("logs", "cli-detached"); code != 2 || !strings.Contains(e, "choose one of: [web side]") {
		t.Errorf("logs without a container of a 2-container pod: exit %d, %q", code, e)
	}

	// exec: the output and the exit code of the command.
	if got, e, code := c.run("exec", "cli-detached", "side", "--", "/bin/sh", "-c", "echo from-exec; echo to-err >&2; exit 3"); code != 3 || got != "from-exec\n" || e != "to-err\n" {
		t.Errorf("exec: exit %d, stdout %q, stderr %q; want 3, from-exec, to-err", code, got, e)
	}
	if _, e, code := c.run("exec", "cli-detached", "nosuch", "--", "true"); code != 1 || !strings.Contains(e, "not found") {
		t.Errorf("exec in a missing container: exit %d, %q", code, e)
	}

	// condition: the readiness gate holds Ready back until another process sets its condition
	// through the supervisor.
	c.waitPS("Ready held back by the readiness gate", func(l podList) bool {
		r := l.Items[0].Status.Condition(conditions.PodReady)
		return r.Status == "False" && r.Reason == "ReadinessGatesNotReady" &&
			r.Message == `corresponding condition of pod readiness gate "example.com/cli" does not exist.`
	})
	if got, e, code := c.run("condition", "--reason", "Up", "cli-detached", "example.com/cli=True"); code != 0 || got != "pod/cli-detached condition example.com/cli=True\n" {
		t.Fatalf("condition: exit %d, %q, %q", code, got, e)
	}
	c.waitPS("Ready once the gate's condition is True", func(l podList) bool {
		st := l.Items[0].Status
		return st.Condition(conditions.PodReady).Status == "True" && st.Condition("example.com/cli").Reason == "Up"
	})
	if _, e, code := c.run("condition", "cli-detached", "Ready=True"); code != 1 || !strings.Contains(e, "computed by podlife") {
		t.Errorf("condition Ready: exit %d, %q; want refused", code, e)
	}

	// stop: the supervisor stops the pod its way (preStop, then the stop signal); it stays listed.
	if got, e, code := c.run("stop", "cli-detached"); code != 0 || got != "pod/cli-detached stopped\n" {
		t.Fatalf("stop: exit %d, %q, %q", code, got, e)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "log")); strings.Join(strings.Fields(string(b)), " ") != "prestop term" {
		t.Errorf("side's log %q, want preStop then the stop signal", b)
	}
	l = c.ps()
	if len(l.Items) != 1 {
		t.Fatalf("ps after stop: %+v", l)
	}
	for _, cs := range l.Items[0].Status.ContainerStatuses {
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 || cs.Ready {
			t.Errorf("after stop %s: %+v, want terminated with exit 0", cs.Name, cs.State)
		}
	}
	if !alive(supervisor) {
		t.Errorf("the supervisor exited after stop; it must keep the pod until rm")
	}

	// rm: the pod is gone, and the supervisor, which has nothing left, exits.
	if got, e, code := c.run("rm", "cli-detached"); code != 0 || got != "pod/cli-detached removed\n" {
		t.Fatalf("rm: exit %d, %q, %q", code, got, e)
	}
	waitGone(t, supervisor)
	if l := c.ps(); len(l.Items) != 0 {
		t.Errorf("ps after rm: %+v", l)
	}
	if _, e, code := c.run("rm", "cli-detached"); code != 1 || !strings.Contains(e, "not found") {
		t.Errorf("rm of a removed pod: exit %d, %q", code, e)
	}
	// The private containerd, started by the supervisor, outlived it, holding none of its pipes;
	// daemon stop stops it.
	daemonPID := c.daemonPID()
	if daemonPID == 0 {
		t.Fatal("the private containerd did not outlive the supervisor")
	}
	if pipes := pipesOf(daemonPID); len(pipes) > 0 {
		t.Errorf("containerd %d holds pipes of the processes that started it: %v", daemonPID, pipes)
	}
	if r := c.exec("daemon", "stop"); r.code != 0 || alive(daemonPID) {
		t.Errorf("daemon stop: %v", r)
	}
	// Nothing left: no process using the state dir (supervisor, containerd, shims), no mounts,
	// veths, iptables rules or IPAM leases.
	if procs := processesLeft(state); len(procs) > 0 {
		t.Errorf("processes left using %s: %v", state, procs)
	}
	leaks, err := podlifetest.HostLeaks(state, bridge, network, filepath.Join(state, "cni", "ipam"))
	if err != nil || len(leaks) > 0 {
		t.Errorf("host leaks: %v %v", leaks, err)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	// A zombie (state Z) has exited.
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// waitGone waits (bounded) for a process to exit.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); alive(pid); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not exit", pid)
		}
	}
}

// pipesOf lists the pipes among the open files of process pid that it holds one end of, such
// as one inherited from its parent. (Pipes it holds both ends of are its own: containerd 1.6,
// built with an older Go, has one to wake its poller.)
func pipesOf(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	fds := map[string][]string{}
	for _, e := range entries {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(l, "pipe:") {
			fds[l] = append(fds[l], e.Name())
		}
	}
	var out []string
	for pipe, names := range fds {
		if len(names) == 1 {
			out = append(out, names[0]+" -> "+pipe)
		}
	}
	return out
}

// processesLeft lists the processes whose command line mentions dir once everything is removed:
// the state dir's shared container logger exits about 2 s after it last wrote a container's
// output, so it waits (bounded) for them to go before reporting them.
func processesLeft(dir string) []string {
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out := processesUsing(dir)
		if len(out) == 0 || time.Now().After(deadline) {
			return out
		}
	}
}

// processesUsing lists the processes whose command line mentions dir.
func processesUsing(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(dir)) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
