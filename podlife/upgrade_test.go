package podlife_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/probe"
)

// upgradeBase is the commit whose code starts the pod that TestUpgradeAdopt adopts: main before
// issue 17's rebuild of the core. Its on-disk formats (pod.json, status.json, sandbox.json, the
// spec fingerprint and key) and containerd labels are what a host upgraded from it has.
const upgradeBase = "02fe4b7"

// upgradeSpec is the pod testdata/upgrade/main.go runs with upgradeBase's code (keep the two in
// step): "web" with a postStart hook, a startup and a readiness probe; "side", which exits once
// (3) and is restarted.
func upgradeSpec(name, image string) podlife.PodSpec {
	grace := 5 * time.Second
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: &grace,
		Volumes: []podlife.Volume{{Name: "m", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{{
			Name: "web", Image: image,
			Command:        []string{"/bin/sh", "-c", `echo web up; trap 'exit 0' TERM; while :; do sleep 0.1; done`},
			VolumeMounts:   []podlife.VolumeMount{{Name: "m", MountPath: "/m"}},
			PostStart:      hook.Exec("/bin/sh", "-c", "echo started > /m/poststart"),
			StartupProbe:   &probe.Spec{Prober: probe.Exec("/bin/true"), Period: 200 * time.Millisecond},
			ReadinessProbe: &probe.Spec{Prober: probe.Exec("/bin/cat", "/m/poststart"), Period: 200 * time.Millisecond},
		}, {
			Name: "side", Image: image,
			Command:      []string{"/bin/sh", "-c", `[ -e /m/side-ran ] || { touch /m/side-ran; echo side once; exit 3; }; trap 'exit 0' TERM; while :; do sleep 0.1; done`},
			VolumeMounts: []podlife.VolumeMount{{Name: "m", MountPath: "/m"}},
		}},
	}
}

var upgradeMgr struct {
	once      sync.Once
	mgr, logr string // the old manager and the old container logger
	skip, err string
}

// upgradeBinaries builds testdata/upgrade/main.go and the container logger with upgradeBase's
// code, once per run: the commit's tree (git archive) in a temporary directory, with the test
// program copied into it, built with -trimpath so that the build cache serves every run after
// the first. It skips when the repository's history (or git) is absent.
func upgradeBinaries(t *testing.T) (mgr, logger string) {
	t.Helper()
	upgradeMgr.once.Do(func() {
		if _, err := exec.LookPath("git"); err != nil {
			upgradeMgr.skip = "no git: " + err.Error()
			return
		}
		if out, err := exec.Command("git", "cat-file", "-e", upgradeBase+"^{commit}").CombinedOutput(); err != nil {
			upgradeMgr.skip = "the repository's history has no commit " + upgradeBase + " (a shallow clone or no .git): " + strings.TrimSpace(string(out))
			return
		}
		src := filepath.Join(env.dir, "upgrade-src")
		bin := filepath.Join(env.dir, "upgrade-bin")
		for _, d := range []string{src, bin, filepath.Join(src, "internal", "cmd", "upgrademgr")} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				upgradeMgr.err = err.Error()
				return
			}
		}
		// From the repository's top (git archive in a subdirectory archives only that one).
		tar := filepath.Join(env.dir, "upgrade-src.tar")
		archive := exec.Command("git", "archive", "-o", tar, upgradeBase)
		archive.Dir = ".."
		if out, err := archive.CombinedOutput(); err != nil {
			upgradeMgr.err = "git archive: " + err.Error() + ": " + string(out)
			return
		}
		if out, err := exec.Command("tar", "-x", "-f", tar, "-C", src).CombinedOutput(); err != nil {
			upgradeMgr.err = "tar: " + err.Error() + ": " + string(out)
			return
		}
		prog, err := os.ReadFile(filepath.Join("testdata", "upgrade", "main.go"))
		if err == nil {
			err = os.WriteFile(filepath.Join(src, "internal", "cmd", "upgrademgr", "main.go"), prog, 0o600)
		}
		if err != nil {
			upgradeMgr.err = err.Error()
			return
		}
		build := exec.Command("go", "build", "-trimpath", "-o", bin+"/", "./internal/cmd/upgrademgr", "./internal/cmd/podlife-logger")
		build.Dir = src
		build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if out, err := build.CombinedOutput(); err != nil {
			upgradeMgr.err = "build " + upgradeBase + "'s manager: " + err.Error() + "\n" + string(out)
			return
		}
		upgradeMgr.mgr, upgradeMgr.logr = filepath.Join(bin, "upgrademgr"), filepath.Join(bin, "podlife-logger")
	})
	if upgradeMgr.skip != "" {
		t.Skip(upgradeMgr.skip)
	}
	if upgradeMgr.err != "" {
		t.Fatal(upgradeMgr.err)
	}
	return upgradeMgr.mgr, upgradeMgr.logr
}

// TestUpgradeAdopt: a pod started by upgradeBase's code (a postStart hook, startup and
// readiness probes, two containers, one restarted once), whose manager then exited, is adopted
// by this tree's Runtime with the same spec: its containers run on untouched (the same
// containerd containers, started at the same times), its restart counts and probe state are
// as they were, its logs read, exec reaches it, and it stops and is removed with nothing left behind (the
// harness's leak check). It guards what an upgrade of a host keeps: the pod's record, status
// and sandbox files, the spec fingerprint and its key, the labels on containerd's objects.
func TestUpgradeAdopt(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	begin := time.Now()
	mgr, oldLogger := upgradeBinaries(t)
	built := time.Since(begin)
	h := newHarness(t)
	const name = "upgrade"
	cfg, _ := json.Marshal(map[string]any{
		"address": env.daemon.Address(), "namespace": h.ns, "stateDir": h.stateDir,
		"bridge": h.bridge, "logger": oldLogger, "image": testImage, "pod": name,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mgr)
	cmd.Env = append(os.Environ(), "PODLIFE_UPGRADEMGR="+string(cfg))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s's manager: %v\nstderr:\n%s", upgradeBase, err, stderr.String())
	}
	defer func() {
		if t.Failed() {
			t.Logf("%s's manager's log:\n%s", upgradeBase, stderr.String())
		}
	}()
	var was podlife.PodStatus
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &was); err != nil {
		t.Fatalf("%s's manager's status %q: %v", upgradeBase, stdout.String(), err)
	}
	rec, err := h.rt.LookupPod(ctx, name)
	if err != nil || rec.Managed() {
		t.Fatalf("LookupPod after the old manager exited: %+v, %v; want an unmanaged pod", rec, err)
	}

	pod, err := h.rt.Adopt(ctx, upgradeSpec(name, testImage))
	if err != nil {
		t.Fatalf("Adopt the pod %s started: %v", upgradeBase, err)
	}
	st := pod.Status()
	if st.Phase != podlife.PhaseRunning || st.Reason != "" || st.PodIP != was.PodIP || !st.StartTime.Equal(was.StartTime) {
		t.Errorf("adopted: phase %s reason %q IP %s start %v; was Running, IP %s, start %v",
			st.Phase, st.Reason, st.PodIP, st.StartTime, was.PodIP, was.StartTime)
	}
	if len(st.ContainerStatuses) != len(was.ContainerStatuses) {
		t.Fatalf("adopted: %d containers, was %d", len(st.ContainerStatuses), len(was.ContainerStatuses))
	}
	for i, c := range st.ContainerStatuses {
		b := was.ContainerStatuses[i]
		if c.Name != b.Name || c.ContainerID != b.ContainerID || c.RestartCount != b.RestartCount ||
			c.State.Running == nil || !c.State.Running.StartedAt.Equal(b.State.Running.StartedAt) {
			state, _ := json.Marshal(c.State)
			t.Errorf("adopted %s: id %s restarts %d state %s; was %s, %d, running since %v",
				c.Name, c.ContainerID, c.RestartCount, state, b.ContainerID, b.RestartCount, b.State.Running.StartedAt)
		}
		if !c.Started {
			t.Errorf("adopted %s: started %v, want true (its startup probe had passed)", c.Name, c.Started)
		}
	}
	if side := st.ContainerStatuses[1]; side.RestartCount != 1 || side.LastState.Terminated == nil ||
		side.LastState.Terminated.ExitCode != 3 {
		last, _ := json.Marshal(side.LastState)
		t.Errorf("adopted side: restarts %d, last state %s; want 1 after exit 3", side.RestartCount, last)
	}
	// Readiness is the probes' again: the adopter probes, and the pod is Ready within a bound.
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	if err := pod.WaitReady(wctx); err != nil {
		t.Errorf("adopted pod not ready: %v; status %+v", err, pod.Status())
	}
	wcancel()

	// The logs the old code's logger wrote are read by this tree's (files, names, format).
	for _, l := range []struct {
		container, want string
		previous        bool
	}{{"web", "web up", false}, {"side", "side once", true}} {
		var buf bytes.Buffer
		if err := pod.Logs(ctx, l.container, podlife.LogOptions{Previous: l.previous}, &buf); err != nil || strings.TrimSpace(buf.String()) != l.want {
			t.Errorf("logs of %s (previous %v): %q, %v; want %q", l.container, l.previous, buf.String(), err, l.want)
		}
	}
	var out bytes.Buffer
	code, err := pod.Exec(ctx, "web", []string{"/bin/cat", "/m/poststart"}, podlife.ExecIO{Stdout: &out})
	if err != nil || code != 0 || strings.TrimSpace(out.String()) != "started" {
		t.Errorf("exec in the adopted pod: %d %v %q; want the postStart hook's file", code, err, out.String())
	}
	if err := pod.Stop(ctx); err != nil {
		t.Errorf("Stop the adopted pod: %v", err)
	}
	for _, c := range pod.Status().ContainerStatuses {
		if c.State.Terminated == nil {
			t.Errorf("after Stop: %s is %+v, want terminated", c.Name, c.State)
		}
	}
	if err := pod.Remove(ctx); err != nil {
		t.Errorf("Remove the adopted pod: %v", err)
	}
	if _, err := h.rt.LookupPod(ctx, name); err == nil {
		t.Errorf("LookupPod after Remove: found")
	}
	t.Logf("%s's code built in %v; the whole test took %v", upgradeBase, built.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))
}
