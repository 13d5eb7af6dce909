package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runRefused runs the agent, which must refuse to start: it returns the agent's output, or
// fails the test if the agent still runs after 60 s (it accepted what it should refuse).
func (e *agentEnv) runRefused(want ...string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, "--manifests", e.manifests, "--state-dir", e.state, "--agent-dir", filepath.Join(e.dir, "agent"),
		"--namespace", e.ns, "--network", e.network, "--bridge", e.bridge, "--subnet", e.subnet, "--node-name", e.node)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			e.t.Errorf("agent exit %v (code %d), want 1\n%s", err, code, out.String())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-done
		e.t.Errorf("the agent ran (killed after 60 s), want it to refuse at start\n%s", out.String())
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			e.t.Errorf("agent output %q: want it to say %q", out.String(), w)
		}
	}
}

// A manifest directory another user can write, or replace, gives that user root (a hostPath
// manifest): the agent refuses to start, naming the directory, its owner and mode, and the
// fix. A manifest file another user owns or can write is a bad manifest (the others run). A
// symlinked .status or .status/pods makes the agent write and delete nothing outside (on main
// it wrote agent.json into the symlink's target, and pruned every file of the host directory
// .status/pods pointed to).
func TestAgentRefusesUntrustedManifests(t *testing.T) {
	e := newAgentEnv(t)
	fix := func(p string) string { return "fix: chown root:root " + p + " && chmod go-w " + p }

	// The directory: world-writable, another user's, below a parent another user can write.
	if err := os.Chmod(e.manifests, 0o777); err != nil {
		t.Fatal(err)
	}
	e.runRefused(e.manifests, "mode drwxrwxrwx", fix(e.manifests))
	if err := os.Chmod(e.manifests, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(e.manifests, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	e.runRefused(e.manifests, "uid 1000", fix(e.manifests))
	if err := os.Chown(e.manifests, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(e.dir, 0o777); err != nil {
		t.Fatal(err)
	}
	e.runRefused("parent of the manifest directory "+e.dir, fix(e.dir))
	if err := os.Chmod(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}

	// .status, a symlink to a host directory: refused, the host directory untouched.
	host, _ := hostFile(t, "host\n")
	status := filepath.Join(e.manifests, ".status")
	if err := os.RemoveAll(status); err != nil { // an agent that ran above (on main) made it
		t.Fatal(err)
	}
	if err := os.Symlink(host, status); err != nil {
		t.Fatal(err)
	}
	e.runRefused(status)
	checkHost(t, host, "host\n")
	if err := os.Remove(status); err != nil {
		t.Fatal(err)
	}

	// Manifests another user owns or anyone can write: reported, not run; the good one runs.
	// .status/pods, a symlink to a host directory: the pods' status is not written, and nothing
	// of the host directory is pruned.
	e.write("good.yaml", "good", "v1")
	e.write("evil.yaml", "evil", "v1")
	e.write("loose.yaml", "loose", "v1")
	if err := os.Chown(filepath.Join(e.manifests, "evil.yaml"), 1000, 1000); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(e.manifests, "loose.yaml"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(status, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(status, "pods")); err != nil {
		t.Fatal(err)
	}
	agent := e.start("--stop-pods-on-exit")
	fileStatus := func(name string) (r fileResult, ok bool) {
		b, err := os.ReadFile(filepath.Join(status, "files", name+".json"))
		return r, err == nil && json.Unmarshal(b, &r) == nil
	}
	e.waitFor("the manifests' status", func() bool {
		_, g := fileStatus("good.yaml")
		_, v := fileStatus("evil.yaml")
		_, l := fileStatus("loose.yaml")
		return g && v && l
	})
	e.waitLines("good", 1)
	if r, _ := fileStatus("good.yaml"); r.Error != "" || len(r.Pods) != 1 || r.Pods[0] != "good-edge" {
		t.Errorf("good.yaml: %+v, want its pod", r)
	}
	for _, c := range []struct{ file, says string }{{"evil.yaml", "uid 1000"}, {"loose.yaml", "mode -rw-rw-rw-"}} {
		p := filepath.Join(e.manifests, c.file)
		if r, _ := fileStatus(c.file); !strings.Contains(r.Error, c.says) || !strings.Contains(r.Error, fix(p)) || len(r.Pods) > 0 {
			t.Errorf("%s: %+v, want refused (%s) naming the fix", c.file, r, c.says)
		}
	}
	if err := agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := agent.Wait(); err != nil {
		t.Fatalf("agent after SIGTERM: %v\n%s", err, e.agentLog(e.n))
	}
	checkHost(t, host, "host\n")
	if log := e.agentLog(e.n); !strings.Contains(log, filepath.Join(status, "pods")) {
		t.Errorf("agent log: want an error naming %s\n%s", filepath.Join(status, "pods"), log)
	}
	for _, name := range []string{"evil", "loose"} {
		if l := e.lines(name); len(l) > 0 {
			t.Errorf("%s's container wrote %q: the untrusted manifest ran", name, l)
		}
	}
	e.checkPodGone("good-edge")
	e.checkLeaks()
}
