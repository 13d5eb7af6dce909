package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

const testImage = "podlife.edge/busybox:1"

// testManifest is a pod whose container appends "<version> <random id>" to /out/<name> when
// it starts, "<version> stop" when it gets SIGTERM, and "<version> exit" when it exits with
// code 3 because /out/<name>.quit exists: the file is the container's own record of its
// starts and ends.
const testManifest = `apiVersion: v1
kind: Pod
metadata: {name: %[1]s}
spec:
  terminationGracePeriodSeconds: 5
  volumes: [{name: out, hostPath: {path: %[2]s, type: Directory}}]
  containers:
  - name: main
    image: ` + testImage + `
    env: [{name: VERSION, value: "%[3]s"}]
    command: ["/bin/sh", "-c", "echo \"$VERSION $(cat /proc/sys/kernel/random/uuid)\" >> /out/%[1]s; trap 'echo \"$VERSION stop\" >> /out/%[1]s; exit 0' TERM; while [ ! -e /out/%[1]s.quit ]; do sleep 0.2; done; echo \"$VERSION exit\" >> /out/%[1]s; exit 3"]
    volumeMounts: [{name: out, mountPath: /out}]
`

// agentEnv is one test's agent: its binary, directories and network.
type agentEnv struct {
	t                                 *testing.T
	dir, bin, manifests, out, state   string
	bridge, network, subnet, ns, node string
	n                                 int // agents started, for their log files
	// podSecurity is the agents' --pod-security: privileged, since testManifest has a hostPath
	// volume, which the default (baseline) refuses; empty leaves the agent's default.
	podSecurity string
	// private gives the agents --private-containerd (and the test's runtimes
	// Embedded.IgnoreSystem): a system containerd's socket exists.
	private bool
}

func newAgentEnv(t *testing.T) *agentEnv {
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
	// Beside a system containerd, the agents get --private-containerd and the test fails if the
	// system daemon changes: the tests never touch a daemon they did not start.
	private := false
	if _, err := os.Stat(podlife.DefaultAddress); err == nil {
		private = true
		podlifetest.KeepSystemContainerd(t, podlife.DefaultAddress)
	}
	dir, err := os.MkdirTemp("", "plt-edge")
	if err != nil {
		t.Fatal(err)
	}
	pid := os.Getpid()
	e := &agentEnv{t: t, dir: dir, bin: filepath.Join(dir, "edge-agent"), manifests: filepath.Join(dir, "m"),
		out: filepath.Join(dir, "out"), state: filepath.Join(dir, "state"),
		bridge: fmt.Sprintf("pledge%d", pid%100000), network: fmt.Sprintf("pledge-%d", pid),
		subnet: fmt.Sprintf("10.%d.%d.0/24", 100+pid%40, pid%250), ns: fmt.Sprintf("pledge%d", pid), node: "edge", podSecurity: "privileged", private: private}
	t.Cleanup(func() {
		for i := 1; i <= e.n; i++ {
			if log := e.agentLog(i); strings.Contains(log, "DATA RACE") {
				t.Errorf("agent %d: the race detector reported:\n%s", i, log)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Pods left (a failed test): remove them, so that the failure is all a failed run leaves.
		if _, err := daemon.Lookup(filepath.Join(e.state, "containerd")); err == nil {
			if rt, err := podlife.New(ctx, e.config()); err == nil {
				pods, _ := rt.ListPods(ctx)
				for _, p := range pods {
					t.Errorf("leak: pod %s", p.Name)
					if h, err := rt.Pod(p.Name); err == nil {
						_ = h.Remove(ctx, podlife.WithGracePeriod(0))
					}
				}
				_ = rt.Close()
			}
		}
		if err := daemon.Shutdown(ctx, filepath.Join(e.state, "containerd"), nil); err != nil && !errors.Is(err, daemon.ErrNotRunning) {
			t.Errorf("stop the private containerd: %v", err)
		}
		for _, pid := range podlifetest.ProcessesWithin(dir, 15*time.Second) {
			t.Errorf("leak: process %d still runs from %s", pid, dir)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = exec.Command("ip", "link", "del", e.bridge).Run()
		for _, ext := range []string{".json", ".lock"} { // the bridge's claim (see cni.BridgeClaimDir)
			_ = os.Remove(filepath.Join(cni.BridgeClaimDir, e.bridge+ext))
		}
		_ = podlifetest.RemoveNamespaceDirs(e.ns)
		// The agent's network keeps its masquerade rule (and localnet guard) until destroyed,
		// which the agent never does.
		if err := podlifetest.RemoveNetworkRules(dir); err != nil {
			t.Error(err)
		}
		_ = podlifetest.RemoveAll(dir)
	})
	for _, d := range []string{e.manifests, e.out} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// Root's alone, whatever the umask: the agent refuses a manifest dir others can write.
	if err := os.Chmod(e.manifests, 0o755); err != nil {
		t.Fatal(err)
	}
	// Built with the race detector: the agent's logs are checked for reports at the end.
	if b, err := exec.Command("go", "build", "-race", "-o", e.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	if err := podlifetest.WriteBusyboxArchive(filepath.Join(dir, "busybox.tar"), testImage); err != nil {
		t.Fatal(err)
	}
	return e
}

// start runs the agent as a child process; the test's cleanup kills it if it still runs.
func (e *agentEnv) start(extra ...string) *exec.Cmd {
	e.t.Helper()
	e.n++
	// A long interval: inotify, the pods' events and the operations' ends drive the agent.
	args := []string{"--manifests", e.manifests, "--state-dir", e.state, "--agent-dir", filepath.Join(e.dir, "agent"),
		"--namespace", e.ns, "--network", e.network, "--bridge", e.bridge, "--subnet", e.subnet,
		"--node-name", e.node, "--interval", "1m", "--retry", "300ms", "--import", filepath.Join(e.dir, "busybox.tar"), "--log-level", "debug"}
	if e.podSecurity != "" {
		args = append(args, "--pod-security", e.podSecurity)
	}
	if e.private {
		args = append(args, "--private-containerd")
	}
	if l := os.Getenv("PODLIFE_TEST_LOGGER"); l != "" {
		args = append(args, "--container-logger", l)
	}
	cmd := exec.Command(e.bin, append(args, extra...)...)
	logFile, err := os.Create(filepath.Join(e.dir, fmt.Sprintf("agent-%d.log", e.n)))
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	logFile.Close()
	e.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	// Ready once it holds the agent dir's lock and handles signals: .status/agent.json names it.
	e.waitFor(fmt.Sprintf("agent %d to start", e.n), func() bool {
		var info agentInfo
		b, err := os.ReadFile(filepath.Join(e.manifests, ".status", "agent.json"))
		return err == nil && json.Unmarshal(b, &info) == nil && info.PID == cmd.Process.Pid
	})
	return cmd
}

// agentLog returns the log of the n-th agent started.
func (e *agentEnv) agentLog(n int) string {
	b, _ := os.ReadFile(filepath.Join(e.dir, fmt.Sprintf("agent-%d.log", n)))
	return string(b)
}

func (e *agentEnv) write(file, name, version string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.manifests, file), []byte(fmt.Sprintf(testManifest, name, e.out, version)), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// lines returns what the containers of pod name wrote to /out/<name>: one line per start and stop.
func (e *agentEnv) lines(name string) []string {
	b, _ := os.ReadFile(filepath.Join(e.out, name))
	return strings.Fields(strings.ReplaceAll(strings.ReplaceAll(string(b), " ", "_"), "\n", " "))
}

// waitLines waits until the containers of pod name wrote at least n lines (a container runs
// before its shell writes its start line), and returns them.
func (e *agentEnv) waitLines(name string, n int) []string {
	e.t.Helper()
	e.waitFor(fmt.Sprintf("%d lines from %s's containers", n, name), func() bool { return len(e.lines(name)) >= n })
	return e.lines(name)
}

// pod reads the status file of pod name (the manifest's name), ok false if there is none.
func (e *agentEnv) pod(name string) (r podReport, ok bool) {
	b, err := os.ReadFile(filepath.Join(e.manifests, ".status", "pods", name+"-"+e.node+".json"))
	if err != nil {
		return r, false
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, false // being replaced: read again
	}
	return r, true
}

// waitFor polls cond (the agent is another process: its status files are what there is to
// wait on) until it holds, for at most 90 s.
func (e *agentEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(90 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s\nagent log:\n%s", what, e.agentLog(e.n))
		}
	}
}

// running says whether the pod's status file says its container runs, under the agent's
// management (or, with wantState, in that state).
func running(r podReport, ok bool, hash string, states ...podState) bool {
	if !ok || r.Operation != "" || r.Status == nil || len(r.Status.ContainerStatuses) != 1 ||
		r.Status.ContainerStatuses[0].State.Running == nil || (hash != "" && r.Hash != hash) {
		return false
	}
	for _, s := range states {
		if r.State == s {
			return true
		}
	}
	return false
}

// The agent follows its directory: two manifests run, a changed one is replaced (stopped
// with its grace period, then run again), a removed one is gone (no containerd objects, no
// netns); killed with SIGKILL and started again, it keeps the remaining pod without
// restarting it and runs a manifest added meanwhile; a bad manifest is reported and changes
// nothing; with --stop-pods-on-exit, SIGTERM removes its pods; nothing is left behind.
func TestAgentFollowsDirectory(t *testing.T) {
	e := newAgentEnv(t)
	e.write("a.yaml", "alpha", "v1")
	e.write("b.yaml", "beta", "v1")
	e.write("e.yaml", "crash", "v1")
	// stuck's image is nowhere: it waits in image pull back-off, and blocks nobody.
	stuck := strings.Replace(fmt.Sprintf(testManifest, "stuck", e.out, "v1"), testImage, "podlife.invalid/missing:1", 1)
	if err := os.WriteFile(filepath.Join(e.manifests, "s.yaml"), []byte(stuck), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := e.start()

	// Both run: the status files say so, and each container wrote its start line.
	e.waitFor("alpha and beta running", func() bool {
		a, aok := e.pod("alpha")
		b, bok := e.pod("beta")
		c, cok := e.pod("crash")
		return running(a, aok, "", stateManaged) && running(b, bok, "", stateManaged) && running(c, cok, "", stateManaged)
	})
	for _, name := range []string{"alpha", "beta", "crash"} {
		if l := e.waitLines(name, 1); len(l) != 1 || !strings.HasPrefix(l[0], "v1_") {
			t.Errorf("%s's container wrote %q, want one start of v1", name, l)
		}
	}
	e.waitFor("stuck waiting for its image", func() bool {
		s, ok := e.pod("stuck")
		if !ok || s.Operation != actRun || s.Status == nil || len(s.Status.ContainerStatuses) != 1 {
			return false
		}
		w := s.Status.ContainerStatuses[0].State.Waiting
		return w != nil && (w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff")
	})
	// Removing its manifest cancels the wait and removes the pod.
	if err := os.Remove(filepath.Join(e.manifests, "s.yaml")); err != nil {
		t.Fatal(err)
	}
	e.waitFor("stuck gone", func() bool { _, ok := e.pod("stuck"); return !ok })
	e.checkPodGone("stuck-edge")
	if st, ok := e.pod("alpha"); !ok || st.Status.Name != "alpha-edge" || st.File != "a.yaml" {
		t.Errorf("alpha's status %+v, want the pod alpha-edge from a.yaml", st)
	}

	// Change beta: the v1 container gets SIGTERM (its trap writes), then v2 starts.
	old, _ := e.pod("beta")
	e.write("b.yaml", "beta", "v2")
	e.waitFor("beta replaced", func() bool {
		b, ok := e.pod("beta")
		return ok && b.Hash != old.Hash && running(b, ok, b.Hash, stateManaged)
	})
	if l := e.waitLines("beta", 3); len(l) != 3 || !strings.HasPrefix(l[0], "v1_") || l[1] != "v1_stop" || !strings.HasPrefix(l[2], "v2_") {
		t.Errorf("beta's containers wrote %q, want v1's start, v1's stop, v2's start", l)
	}
	b2, _ := e.pod("beta")
	if b2.Status.ContainerStatuses[0].ContainerID == old.Status.ContainerStatuses[0].ContainerID {
		t.Errorf("beta's container %s was not replaced", old.Status.ContainerStatuses[0].ContainerID)
	}

	// Another process removes beta (through the agent, its manager): the agent runs it again.
	other := e.runtime()
	if err := removePod(t.Context(), other, "beta-edge"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("beta run again", func() bool {
		b, ok := e.pod("beta")
		return running(b, ok, b2.Hash, stateManaged) && b.Status.ContainerStatuses[0].ContainerID != b2.Status.ContainerStatuses[0].ContainerID
	})
	if l := e.waitLines("beta", 5); len(l) != 5 || l[3] != "v2_stop" || !strings.HasPrefix(l[4], "v2_") {
		t.Errorf("beta's containers wrote %q, want v2 stopped by the removal, then started again", l)
	}

	// A manifest naming a pod another process runs: reported, the pod left alone; once that
	// pod is gone, the agent runs its own (after its retry back-off).
	if _, err := other.Run(t.Context(), podlife.PodSpec{Name: "foreign-edge", TerminationGracePeriod: new(time.Duration),
		Containers: []podlife.ContainerSpec{{Name: "main", Image: testImage, Command: []string{"sleep", "3600"}}}}); err != nil {
		t.Fatal(err)
	}
	e.write("f.yaml", "foreign", "v1")
	e.waitFor("foreign refused", func() bool {
		f, ok := e.pod("foreign")
		return ok && f.State == stateFailed && strings.Contains(f.Error, "did not start")
	})
	if p, err := other.Pod("foreign-edge"); err != nil || p.Status().ContainerStatuses[0].State.Running == nil {
		t.Errorf("the other process's pod after the agent saw a manifest of its name: %v", err)
	}
	if err := removePod(t.Context(), other, "foreign-edge"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("foreign run by the agent", func() bool { f, ok := e.pod("foreign"); return running(f, ok, "", stateManaged) })
	if l := e.waitLines("foreign", 1); len(l) != 1 {
		t.Errorf("foreign's container wrote %q, want one start", l)
	}
	if err := os.Remove(filepath.Join(e.manifests, "f.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}

	// Remove alpha: stopped with its grace period, then nothing left of it.
	if err := os.Remove(filepath.Join(e.manifests, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	e.waitFor("alpha and foreign gone", func() bool {
		_, aok := e.pod("alpha")
		_, fok := e.pod("foreign")
		return !aok && !fok
	})
	e.checkPodGone("foreign-edge")
	if l := e.lines("alpha"); len(l) != 2 || l[1] != "v1_stop" {
		t.Errorf("alpha's container wrote %q, want its start then its stop", l)
	}
	e.checkPodGone("alpha-edge")

	// SIGKILL the agent; add gamma while it is down; start it again.
	before, _ := e.pod("beta")
	if err := agent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = agent.Wait()
	e.write("c.yaml", "gamma", "v1")
	// crash's container exits while no agent runs.
	e.quit("crash")
	e.waitFor("crash's container exited", func() bool { l := e.lines("crash"); return l[len(l)-1] == "v1_exit" })
	if err := os.Remove(filepath.Join(e.out, "crash.quit")); err != nil {
		t.Fatal(err)
	}
	agent = e.start()
	want := stateManaged // adopted
	// A second agent on the same agent dir is refused.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	second := exec.CommandContext(ctx, e.bin, "--manifests", e.manifests, "--state-dir", e.state, "--agent-dir", filepath.Join(e.dir, "agent"),
		"--namespace", e.ns, "--network", e.network, "--bridge", e.bridge, "--subnet", e.subnet, "--node-name", e.node)
	if out, err := second.CombinedOutput(); second.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "another edge-agent runs with this agent dir") {
		t.Errorf("a second agent: %v\n%s", err, out)
	}
	e.waitFor("gamma running and beta kept", func() bool {
		c, cok := e.pod("gamma")
		b, bok := e.pod("beta")
		return running(c, cok, "", stateManaged) && running(b, bok, before.Hash, want)
	})
	after, _ := e.pod("beta")
	bs, as := before.Status.ContainerStatuses[0], after.Status.ContainerStatuses[0]
	if as.ContainerID != bs.ContainerID || as.RestartCount != bs.RestartCount || !as.State.Running.StartedAt.Equal(bs.State.Running.StartedAt) {
		t.Errorf("beta after the agent's restart: %+v, before: %+v; want the same container, not restarted", as, bs)
	}
	if l := e.lines("beta"); len(l) != 5 {
		t.Errorf("beta's containers wrote %q after the agent's restart, want no new start or stop", l)
	}
	if l := e.waitLines("gamma", 1); len(l) != 1 || !strings.HasPrefix(l[0], "v1_") {
		t.Errorf("gamma's container wrote %q, want one start", l)
	}
	// crash runs again: its container, which exited while no agent ran, restarted once by its
	// adopter's restart policy.
	e.waitFor("crash running again", func() bool {
		c, ok := e.pod("crash")
		return running(c, ok, "", stateManaged) && len(e.lines("crash")) == 3
	})
	if l := e.lines("crash"); l[1] != "v1_exit" || !strings.HasPrefix(l[2], "v1_") {
		t.Errorf("crash's containers wrote %q, want a start, the exit, a start", l)
	}
	if c, _ := e.pod("crash"); c.Status.ContainerStatuses[0].RestartCount != 1 || c.Status.ContainerStatuses[0].LastState.Terminated == nil ||
		c.Status.ContainerStatuses[0].LastState.Terminated.ExitCode != 3 {
		t.Errorf("crash after adoption: %+v, want restarted once after its exit with code 3", c.Status.ContainerStatuses[0])
	}

	// A bad manifest is reported in its file status; the other pods are untouched.
	if err := os.WriteFile(filepath.Join(e.manifests, "d.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: delta}\nspec:\n  containers: [{name: c, image: x, bogus: 1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var bad fileResult
	// os.WriteFile creates the file empty first: the agent may report that state ("no pod in the
	// manifest") before the content's own error.
	e.waitFor("d.yaml reported", func() bool {
		b, err := os.ReadFile(filepath.Join(e.manifests, ".status", "files", "d.yaml.json"))
		return err == nil && json.Unmarshal(b, &bad) == nil && bad.Error != "" && !strings.Contains(bad.Error, "no pod in the manifest")
	})
	if !strings.Contains(bad.Error, "bogus") || bad.Pods != nil {
		t.Errorf("d.yaml's status %+v, want an error naming the unknown field and no pods", bad)
	}
	if _, ok := e.pod("delta"); ok {
		t.Error("the bad manifest's pod has a status file")
	}
	if l := e.lines("beta"); len(l) != 5 {
		t.Errorf("beta's containers wrote %q, want them untouched by the bad manifest", l)
	}
	if l := e.lines("gamma"); len(l) != 1 {
		t.Errorf("gamma's containers wrote %q, want them untouched by the bad manifest", l)
	}

	// SIGTERM: the agent exits and the pods keep running.
	var info agentInfo
	if b, err := os.ReadFile(filepath.Join(e.manifests, ".status", "agent.json")); err != nil || json.Unmarshal(b, &info) != nil || info.PID != agent.Process.Pid {
		t.Errorf("agent.json: %s (%v), want the agent's pid %d", b, err, agent.Process.Pid)
	}
	if err := agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := agent.Wait(); err != nil {
		t.Fatalf("agent after SIGTERM: %v\n%s", err, e.agentLog(e.n))
	}
	if _, err := os.Stat(filepath.Join(e.manifests, ".status", "agent.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("agent.json after the agent's exit: %v, want removed", err)
	}
	if l := e.lines("beta"); len(l) != 5 {
		t.Errorf("beta's containers wrote %q after the agent's SIGTERM, want no stop", l)
	}

	// With --stop-pods-on-exit, SIGTERM removes them (preStop and grace: the stop lines).
	// The status files are the previous agent's until the new one writes them: remove them to
	// wait for the new agent's.
	if err := os.RemoveAll(filepath.Join(e.manifests, ".status", "pods")); err != nil {
		t.Fatal(err)
	}
	agent = e.start("--stop-pods-on-exit")
	e.waitFor("the agent back", func() bool {
		b, bok := e.pod("beta")
		c, cok := e.pod("gamma")
		x, xok := e.pod("crash")
		return running(b, bok, "", want) && running(c, cok, "", want) && running(x, xok, "", want)
	})
	if err := agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := agent.Wait(); err != nil {
		t.Fatalf("agent after SIGTERM: %v\n%s", err, e.agentLog(e.n))
	}
	for _, name := range []string{"beta", "gamma", "crash"} {
		if l := e.lines(name); l[len(l)-1] != strings.SplitN(l[len(l)-1], "_", 2)[0]+"_stop" {
			t.Errorf("%s's containers wrote %q, want a stop last", name, l)
		}
		e.checkPodGone(name + "-edge")
	}
	if entries, _ := os.ReadDir(filepath.Join(e.manifests, ".status", "pods")); len(entries) > 0 {
		t.Errorf("pod status files left: %v", entries)
	}
	e.checkLeaks()
}

// quit makes the container of pod name exit with code 3.
func (e *agentEnv) quit(name string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.out, name+".quit"), nil, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// config is the agent's podlife configuration.
func (e *agentEnv) config() podlife.Config {
	cfg := podlife.Config{StateDir: e.state, Namespace: e.ns, ContainerLogger: os.Getenv("PODLIFE_TEST_LOGGER")}
	cfg.Embedded.IgnoreSystem = e.private
	cfg.Bridge.Name, cfg.Bridge.Bridge = e.network, e.bridge
	cfg.Bridge.Subnet = netip.MustParsePrefix(e.subnet)
	if p := os.Getenv("PODLIFE_CNI_PATH"); p != "" {
		cfg.Bridge.PluginDirs = filepath.SplitList(p)
	}
	return cfg
}

// runtime returns a Runtime of the test's own on the agent's state dir, as another program
// (`podlife run`, `podlife rm`) would use; the test's cleanup closes it.
func (e *agentEnv) runtime() *podlife.Runtime {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := podlife.New(ctx, e.config())
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { rt.Close() })
	return rt
}

// checkPodGone fails the test if anything of pod is left: containerd objects labelled with
// it, its directory in the state dir, mounts (its pinned namespaces) mentioning it.
func (e *agentEnv) checkPodGone(pod string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.New(daemon.Address(filepath.Join(e.state, "containerd")), client.WithDefaultNamespace(e.ns))
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close()
	cs, err := c.Containers(ctx, fmt.Sprintf("labels.%q==%s", "podlife.io/pod", pod))
	if err != nil || len(cs) > 0 {
		e.t.Errorf("containers of %s left: %d (%v)", pod, len(cs), err)
	}
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	for _, l := range strings.Split(string(mounts), "\n") {
		if strings.Contains(l, e.state) && strings.Contains(l, pod) {
			e.t.Errorf("mount of %s left: %s", pod, l)
		}
	}
	_ = filepath.WalkDir(e.state, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == pod {
			e.t.Errorf("directory of %s left: %s", pod, path)
		}
		return nil
	})
}

// checkLeaks checks containerd (then stops it), shims, host networking and mounts.
func (e *agentEnv) checkLeaks() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.New(daemon.Address(filepath.Join(e.state, "containerd")))
	if err != nil {
		e.t.Fatal(err)
	}
	leaks, err := podlifetest.ContainerdLeaks(ctx, c, e.ns, testImage)
	c.Close()
	if err != nil || len(leaks) > 0 {
		e.t.Errorf("containerd leaks: %v %v", leaks, err)
	}
	if err := daemon.Shutdown(ctx, filepath.Join(e.state, "containerd"), nil); err != nil {
		e.t.Errorf("stop the private containerd: %v", err)
	}
	shimCtx, shimCancel := context.WithTimeout(ctx, 10*time.Second)
	defer shimCancel()
	if l := podlifetest.ShimLeaks(shimCtx, e.ns); len(l) > 0 {
		e.t.Errorf("shims left: %v", l)
	}
	if pids := podlifetest.ProcessesWithin(e.dir, 15*time.Second); len(pids) > 0 {
		e.t.Errorf("processes left running from %s: %v", e.dir, pids)
	}
	host, err := podlifetest.HostLeaks(e.state, e.bridge, e.network, filepath.Join(e.state, "cni", "ipam"))
	if err != nil || len(host) > 0 {
		e.t.Errorf("host leaks: %v %v", host, err)
	}
}

// removePod removes the named pod through its handle, whichever process manages it.
func removePod(ctx context.Context, rt *podlife.Runtime, name string) error {
	pod, err := rt.Pod(name)
	if err != nil {
		return err
	}
	return pod.Remove(ctx)
}
