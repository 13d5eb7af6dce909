package podlife_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/typeurl/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
)

// runcStateRoot is the state root the runc shim gives its runtime binary (--root), whichever
// binary it runs: <root>/<namespace>/<container id>.
const runcStateRoot = "/run/containerd/runc"

// runtimeClassCrun: a pod with runtimeClassName crun (the built-in class) runs on crun, seen
// from the runtimes' own state: each container's state directory holds crun's files (status)
// and not runc's (state.json), `crun state` reports it running with the task's PID while
// `runc state` does not know it, and containerd's record of the container names crun as the
// shim's binary. Both containers are served by one shim (the pod's shim group), a postStart
// exec hook and an exec readiness probe run (through crun's exec), an exec works; Remove
// leaves no state directory (and the harness's leak checks pass). A shareProcessNamespace
// pod's pause runs on crun as well. An unknown class is refused at spec.runtimeClassName
// before anything is made.
func TestRuntimeClassCrun(t *testing.T) {
	crun, err := exec.LookPath("crun")
	if err != nil {
		t.Fatalf("crun is not installed (Debian: apt-get install crun; make test installs it): %v", err)
	}
	runc, err := exec.LookPath("runc")
	if err != nil {
		t.Fatalf("runc: %v", err)
	}
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	_, err = h.rt.Start(ctx, podlife.PodSpec{Name: "noclass", RuntimeClassName: "gvisor",
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"true"}}}})
	var verr *podlife.ValidationError
	if !errors.As(err, &verr) || len(verr.Errs) != 1 || verr.Errs[0].Field != "spec.runtimeClassName" || verr.Errs[0].Type != field.ErrorTypeNotFound {
		t.Errorf("unknown class: err %v, want a ValidationError NotFound at spec.runtimeClassName", err)
	} else if !strings.Contains(err.Error(), `spec.runtimeClassName: Not found: "gvisor"`) {
		t.Errorf("unknown class: %q", err)
	}
	if _, err := h.rt.Pod("noclass"); err == nil {
		t.Error("the refused pod is registered")
	}
	if why := crunCannotRun(); why != "" {
		t.Skip(why)
	}

	loop := `touch /tmp/ready; while :; do sleep 0.1; done`
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "oncrun", RuntimeClassName: "crun", TerminationGracePeriod: ptr(10 * time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loop}, StopSignal: syscall.SIGKILL,
				ReadinessProbe: execProbe("test -f /tmp/ready && test -f /tmp/hook", 100*time.Millisecond, 1),
				PostStart:      hook.Exec("/bin/sh", "-c", "echo hooked > /tmp/hook")},
			{Name: "side", Image: testImage, Command: []string{"sleep", "3600"}, StopSignal: syscall.SIGKILL},
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady (the exec probe on crun): %v", err)
	}
	if got := execIn(t, ctx, pod, "app", "cat /tmp/hook"); got != "hooked\n" {
		t.Errorf("postStart hook on crun wrote %q", got)
	}
	nctx := namespaces.WithNamespace(ctx, h.ns)
	var stateDirs []string
	shims := map[string]bool{}
	for _, name := range []string{"app", "side"} {
		c, err := pod.Container(name)
		if err != nil {
			t.Fatal(err)
		}
		id := c.ID()
		dir := filepath.Join(runcStateRoot, h.ns, id)
		stateDirs = append(stateDirs, dir)
		if _, err := os.Stat(filepath.Join(dir, "status")); err != nil {
			t.Errorf("%s: crun's state file: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "state.json")); err == nil {
			t.Errorf("%s: runc's state.json exists in %s", name, dir)
		}
		root := filepath.Join(runcStateRoot, h.ns)
		out, err := exec.CommandContext(ctx, crun, "--root", root, "state", id).CombinedOutput()
		if err != nil {
			t.Errorf("%s: crun state: %v: %s", name, err, out)
		}
		ctr, err := env.client.LoadContainer(nctx, id)
		if err != nil {
			t.Fatalf("load container %s: %v", id, err)
		}
		task, err := ctr.Task(nctx, nil)
		if err != nil {
			t.Fatalf("task of %s: %v", name, err)
		}
		pid := strconv.Itoa(int(task.Pid()))
		if s := string(out); !strings.Contains(s, `"status": "running"`) || !strings.Contains(s, `"pid": `+pid+",") {
			t.Errorf("%s: crun state does not report it running as PID %s:\n%s", name, pid, s)
		}
		if out, err := exec.CommandContext(ctx, runc, "--root", root, "state", id).CombinedOutput(); err == nil {
			t.Errorf("%s: runc knows the container:\n%s", name, out)
		}
		info, err := ctr.Info(nctx)
		if err != nil {
			t.Fatal(err)
		}
		var opts options.Options
		const runcV2 = "io.containerd.runc.v2" // Config.RuntimeName's default
		if info.Runtime.Name != runcV2 || info.Runtime.Options == nil || typeurl.UnmarshalTo(info.Runtime.Options, &opts) != nil || opts.BinaryName != crun {
			t.Errorf("%s: containerd's runtime %q, options %v, want %s with BinaryName %s", name, info.Runtime.Name, info.Runtime.Options, runcV2, crun)
		}
		shims[ppid(t, pid)] = true
	}
	if len(shims) != 1 {
		t.Errorf("the pod's containers have different parents (shims): %v", shims)
	}
	for p := range shims {
		if b, _ := os.ReadFile("/proc/" + p + "/cmdline"); !strings.Contains(string(b), "containerd-shim-runc-v2") {
			t.Errorf("the containers' parent %s is not the runc shim: %q", p, b)
		}
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}

	// A shareProcessNamespace pod: its pause runs on crun too (and starts the pod's shim).
	shared, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "sharedcrun", RuntimeClassName: "crun", ShareProcessNamespace: true,
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"sleep", "3600"}, StopSignal: syscall.SIGKILL}},
	})
	if err != nil {
		t.Fatalf("Run (shareProcessNamespace): %v", err)
	}
	pauses, err := env.client.Containers(nctx, `labels."`+podlife.LabelKind+`"==`+podlife.LabelKindPause)
	if err != nil || len(pauses) != 1 {
		t.Fatalf("pause containers: %d, %v", len(pauses), err)
	}
	c, _ := shared.Container("app")
	for _, id := range []string{pauses[0].ID(), c.ID()} {
		dir := filepath.Join(runcStateRoot, h.ns, id)
		stateDirs = append(stateDirs, dir)
		if _, err := os.Stat(filepath.Join(dir, "status")); err != nil {
			t.Errorf("%s: crun's state file: %v", id, err)
		}
		if out, err := exec.CommandContext(ctx, crun, "--root", filepath.Join(runcStateRoot, h.ns), "state", id).CombinedOutput(); err != nil || !strings.Contains(string(out), `"status": "running"`) {
			t.Errorf("%s: crun state: %v: %s", id, err, out)
		}
	}
	if got := execIn(t, ctx, shared, "app", `tr '\0' ' ' < /proc/1/cmdline`); got != pauseCmdline {
		t.Errorf("PID 1 %q, want the pause", got)
	}
	if err := shared.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	for _, d := range stateDirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("state directory %s left after Remove: %v", d, err)
		}
	}
}

// ppid is a process's parent PID, from /proc/<pid>/status.
func ppid(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "PPid:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no PPid in /proc/%s/status", pid)
	return ""
}

// crunCannotRun says why crun cannot run containers on this host ("" if it can): crun before
// 1.9 refuses a hybrid cgroup layout, v1 hierarchies with controllers also enabled on the
// cgroup2 mount ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2").
// A host that mounts every controller as v1 (or none, pure v2) runs it.
func crunCannotRun() string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	v1, v2 := false, ""
	for _, l := range strings.Split(string(b), "\n") {
		_, post, ok := strings.Cut(l, " - ")
		if !ok {
			continue
		}
		f := strings.Fields(l)
		switch strings.Fields(post)[0] {
		case "cgroup":
			v1 = true
		case "cgroup2":
			v2 = f[4]
		}
	}
	if !v1 || v2 == "" {
		return ""
	}
	ctrls, _ := os.ReadFile(filepath.Join(v2, "cgroup.controllers"))
	if c := strings.TrimSpace(string(ctrls)); c != "" {
		return "crun 1.8 refuses this hybrid cgroup layout (v1 hierarchies, and controllers " + c + " on the cgroup2 mount " + v2 +
			"); mount them as v1 (mount -t cgroup -o " + c + " ...) in a private mount namespace to run this test (see docs/troubleshooting.md)"
	}
	return ""
}
