package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/podlifetest"
)

// A pod that says hello, then runs until TERM.
const helloManifest = `apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "trap 'exit 0' TERM; echo hello-%s; while :; do sleep 0.1; done"]
`

// result is what one CLI process did.
type result struct {
	args           []string
	stdout, stderr string
	code           int
	took           time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("podlife %s: exit %d after %v\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// exec runs the CLI like run, but may be called from any goroutine: it never fails the test.
func (c cliProc) exec(args ...string) result {
	cmd := exec.Command(c.bin, insertFlags(args, c.common)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	begin := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: o.String(), stderr: e.String(), took: time.Since(begin), code: -1}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	if err != nil && r.code < 0 {
		r.stderr += err.Error()
	}
	return r
}

// daemonPID returns the PID `daemon status` reports, 0 if it says none runs.
func (c cliProc) daemonPID() int {
	c.t.Helper()
	r := c.exec("daemon", "status")
	if r.code == 1 && strings.HasPrefix(r.stdout, "not running") {
		return 0
	}
	m := regexp.MustCompile(`running pid (\d+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		c.t.Fatalf("daemon status: %v", r)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// containerdsOf lists the live containerd processes of the state dir's private containerd.
func containerdsOf(state string) []string {
	var out []string
	for _, p := range processesUsing(filepath.Join(state, "containerd", "config.toml")) {
		pid, _, _ := strings.Cut(p, ":")
		if n, _ := strconv.Atoi(pid); alive(n) {
			out = append(out, p)
		}
	}
	return out
}

// Many CLI processes at once on one state dir with the private containerd: several commands
// racing to start it, then ps loops, logs and exec beside detached runs, a foreground run, stop
// and rm. Every command exits 0 (no EOF, no missing socket): the private containerd belongs to
// the state dir, so the short-lived commands that started it do not stop it when they exit.
// `daemon stop` refuses while a pod is left, then stops it; nothing is left.
func TestConcurrentCommandsSharePrivateContainerd(t *testing.T) {
	dir := cliTestDir(t)
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	state := filepath.Join(dir, "state")
	id := os.Getpid()
	bridge := fmt.Sprintf("plcc%d", id%100000)
	network := fmt.Sprintf("plcc-%d", id)
	subnet := fmt.Sprintf("10.%d.%d.0/24", 190+id%50, id%250)
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", state, "--network", network, "--bridge", bridge, "--subnet", subnet}}
	podA, podB := fmt.Sprintf("cc-a-%d", id), fmt.Sprintf("cc-b-%d", id)
	manifest := func(name, word string) string {
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(fmt.Sprintf(helloManifest, name, word)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	manifestA, manifestB := manifest(podA, "a"), manifest(podB, "b")
	jobFile := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(jobFile, []byte(jobManifest), 0o600); err != nil {
		t.Fatal(err)
	}

	var supervisorsMu sync.Mutex
	var supervisors []int
	t.Cleanup(func() {
		// A failed test still removes its pods, ends its supervisors and stops the daemon.
		for _, p := range []string{podA, podB, "cli-job"} {
			c.exec("rm", "--grace-period", "0", p)
		}
		supervisorsMu.Lock()
		defer supervisorsMu.Unlock()
		for _, pid := range supervisors {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGTERM)
				waitGone(t, pid)
			}
		}
		c.exec("daemon", "stop")
		for _, p := range containerdsOf(state) {
			pid, _, _ := strings.Cut(p, ":")
			n, _ := strconv.Atoi(pid)
			t.Errorf("containerd %d left running; killing it", n)
			_ = syscall.Kill(n, syscall.SIGKILL)
		}
		_ = exec.Command("ip", "link", "del", bridge).Run()
	})
	if pid := c.daemonPID(); pid != 0 {
		t.Fatalf("a private containerd (pid %d) runs before the test started one", pid)
	}

	var failures []string
	var failMu sync.Mutex
	check := func(r result, ok func(result) bool) {
		if r.code != 0 || (ok != nil && !ok(r)) || strings.Contains(r.stderr, "EOF") || strings.Contains(r.stderr, "no such file") {
			failMu.Lock()
			failures = append(failures, r.String())
			failMu.Unlock()
		}
	}

	// 1. Five commands at once on a state dir with no containerd yet: one of them starts it,
	// all of them use it, all exit 0 and it outlives them.
	begin := time.Now()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			if i%2 == 0 {
				check(c.exec("ps", "-o", "json"), func(r result) bool { return strings.Contains(r.stdout, `"items": []`) })
			} else {
				check(c.exec("image", "ls"), nil)
			}
		})
	}
	wg.Wait()
	t.Logf("5 concurrent first commands took %v", time.Since(begin))
	if len(failures) > 0 {
		t.Fatalf("%d of the first commands failed:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	daemonPID := c.daemonPID()
	if daemonPID == 0 || !alive(daemonPID) {
		t.Fatalf("no private containerd runs after the first commands exited (daemon status pid %d)", daemonPID)
	}
	if got := containerdsOf(state); len(got) != 1 {
		t.Fatalf("containerd processes of the state dir: %v, want exactly one", got)
	}
	if pipes := pipesOf(daemonPID); len(pipes) > 0 {
		t.Errorf("containerd %d holds pipes of the command that started it: %v", daemonPID, pipes)
	}

	// 2. A detached pod; its supervisor uses the same containerd.
	runDetached := func(file string, extra ...string) {
		r := c.exec(append([]string{"run", "--detach", "-f", file}, extra...)...)
		check(r, func(r result) bool { return strings.Contains(r.stdout, " started") })
		if m := regexp.MustCompile(`supervised by pid (\d+)`).FindStringSubmatch(r.stderr); m != nil {
			pid, _ := strconv.Atoi(m[1])
			supervisorsMu.Lock()
			supervisors = append(supervisors, pid)
			supervisorsMu.Unlock()
		}
	}
	runDetached(manifestA, "--busybox", "podlife.cli/busybox:1")
	if len(failures) > 0 {
		t.Fatalf("run --detach:\n%s", strings.Join(failures, "\n"))
	}
	c.waitPS(podA+" running", func(l podList) bool {
		return len(l.Items) == 1 && len(l.Items[0].Status.ContainerStatuses) == 1 && l.Items[0].Status.ContainerStatuses[0].State.Running != nil
	})
	// Running is not written: the container's output reaches its log through the logger, after
	// it started. The logs loop below checks that it stays readable while the rest runs.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if r := c.exec("logs", podA, "web"); r.code == 0 && r.stdout == "hello-a\n" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("logs of %s never showed hello-a: %v", podA, r)
		}
	}

	// 3. At once: two ps loops and a logs loop, beside a second detached run, exec in it, a
	// foreground run of a job, then stop and rm of the first pod.
	const iterations = 25
	var mainDone sync.WaitGroup
	mainDone.Add(1)
	done := make(chan struct{})
	counts := make([]int, 3)
	begin = time.Now()
	loop := func(n int, args ...string) {
		wg.Go(func() {
			// At least `iterations` times, and on until the main sequence is over.
			for i := 0; i < 4*iterations; i++ {
				if i >= iterations {
					select {
					case <-done:
						return
					default:
					}
				}
				check(c.exec(args...), nil)
				counts[n]++
			}
		})
	}
	loop(0, "ps")
	loop(1, "ps", "-o", "json")
	var logsWG sync.WaitGroup
	logsWG.Go(func() {
		for range iterations {
			check(c.exec("logs", podA, "web"), func(r result) bool { return r.stdout == "hello-a\n" })
			counts[2]++
		}
	})
	go func() {
		defer mainDone.Done()
		runDetached(manifestB)
		check(c.exec("exec", podB, "web", "--", "/bin/sh", "-c", "echo from-exec"), func(r result) bool { return r.stdout == "from-exec\n" })
		check(c.exec("run", "-f", jobFile), nil) // foreground: exits 0 once the job succeeded and is removed
		logsWG.Wait()
		check(c.exec("stop", podA), func(r result) bool { return r.stdout == "pod/"+podA+" stopped\n" })
		check(c.exec("rm", podA), func(r result) bool { return r.stdout == "pod/"+podA+" removed\n" })
	}()
	mainDone.Wait()
	close(done)
	wg.Wait()
	t.Logf("concurrent phase: %v ps, %v ps -o json, %v logs beside run --detach, exec, run, stop, rm: %v",
		counts[0], counts[1], counts[2], time.Since(begin))
	if len(failures) > 0 {
		t.Fatalf("%d commands failed:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	if pid := c.daemonPID(); pid != daemonPID {
		t.Fatalf("the private containerd is pid %d now, was %d: something stopped or restarted it", pid, daemonPID)
	}

	// 4. daemon stop refuses while a pod is left, naming it; after rm it stops the daemon.
	r := c.exec("daemon", "stop")
	if r.code != 1 || !strings.Contains(r.stderr, podB) || !strings.Contains(r.stderr, "pods left") || !alive(daemonPID) {
		t.Errorf("daemon stop with %s left: %v; want exit 1 naming it, containerd still running", podB, r)
	}
	if r := c.exec("rm", podB); r.code != 0 {
		t.Fatalf("rm %s: %v", podB, r)
	}
	supervisorsMu.Lock()
	for _, pid := range supervisors {
		waitGone(t, pid) // a supervisor exits once its pods are removed, leaving the daemon
	}
	supervisorsMu.Unlock()
	if !alive(daemonPID) {
		t.Fatalf("containerd %d exited with the supervisors", daemonPID)
	}
	if l := c.ps(); len(l.Items) != 0 {
		t.Errorf("ps after rm: %+v", l)
	}
	r = c.exec("daemon", "stop")
	if r.code != 0 || r.stdout != fmt.Sprintf("containerd (pid %d) of %s stopped\n", daemonPID, state) {
		t.Fatalf("daemon stop: %v", r)
	}
	if alive(daemonPID) {
		t.Errorf("containerd %d still runs after daemon stop", daemonPID)
	}
	if pid := c.daemonPID(); pid != 0 {
		t.Errorf("daemon status after stop: pid %d", pid)
	}
	if r := c.exec("daemon", "stop"); r.code != 0 || !strings.Contains(r.stderr, "no private containerd runs") {
		t.Errorf("daemon stop with none running: %v", r)
	}

	// Nothing left: no process using the state dir (supervisors, containerd, shims), no pod
	// directory, no mounts (rootfs, pinned namespaces), veths, iptables rules or IPAM leases.
	if procs := processesLeft(state); len(procs) > 0 {
		t.Errorf("processes left using %s: %v", state, procs)
	}
	if entries, _ := os.ReadDir(filepath.Join(state, "pods")); len(entries) > 0 {
		t.Errorf("pod directories left: %v", entries)
	}
	leaks, err := podlifetest.HostLeaks(state, bridge, network, filepath.Join(state, "cni", "ipam"))
	if err != nil || len(leaks) > 0 {
		t.Errorf("host leaks: %v %v", leaks, err)
	}
}
