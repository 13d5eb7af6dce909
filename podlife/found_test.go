package podlife_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

// The cross-process API (ListPods, LookupPod, Pod.Stop, Pod.Remove, Pod.Exec) is tested with a
// second Runtime on the same configuration (harness.another): to it, the first Runtime's pods
// are another process's, found through the state directory and containerd only.

// waitRecord looks the pod up through rt until ok holds for its record, for at most 30 s. A
// manager writes status.json a moment after each change and another process has no event to
// wait on, so this polls.
func waitRecord(t *testing.T, ctx context.Context, rt *podlife.Runtime, name, what string, ok func(podlife.PodRecord) bool) podlife.PodRecord {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec, err := rt.LookupPod(ctx, name)
		if err == nil && ok(rec) {
			return rec
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("pod %s never %s: last record %+v, err %v", name, what, rec, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// every reports whether ok holds for each of the containers (and there are some).
func every(cs []podlife.ContainerStatus, ok func(podlife.ContainerStatus) bool) bool {
	for _, c := range cs {
		if !ok(c) {
			return false
		}
	}
	return len(cs) > 0
}

func runningReady(c podlife.ContainerStatus) bool { return c.State.Running != nil && c.Ready }

func terminated(c podlife.ContainerStatus) bool { return c.State.Terminated != nil }

// waitLogLine reads a CRI log file until it has the line text on stream, for at most 20 s (the
// manager copies the container's output to the file a moment after it was written).
func waitLogLine(t *testing.T, path, stream, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var lines []podlife.LogLine
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read log: %v", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			l, ok := podlife.ParseLogLine(sc.Bytes())
			if !ok {
				t.Fatalf("%s: not a CRI log line: %q", path, sc.Text())
			}
			if l.Stream == stream && l.Text == text && !l.Partial {
				return
			}
			lines = append(lines, l)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %s line %q in %+v", path, stream, text, lines)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A pod of one Runtime is seen and controlled by another on the same state directory, as by
// another process: ListPods and LookupPod show it managed (by this process), with its manager's
// status and its log files; Pod.Exec runs commands in its containers with their output and
// exit code; Pod.Stop has the manager stop it its own way (preStop hook, stop signal, Stopped
// event) and Pod.Remove has it remove the pod, after which no runtime knows of it.
func TestOtherProcessSeesAndControlsPod(t *testing.T) {
	marks := t.TempDir() // before the harness: removed after the harness's cleanup
	h := newHarness(t)
	other := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "shared"
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(20 * time.Second),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
			Command:      []string{"/bin/sh", "-c", "trap 'exit 0' TERM; echo hello-from-app; while true; do sleep 1; done"},
			PreStop:      hook.Exec("/bin/sh", "-c", "echo prestop-ran > /marks/prestop"),
		}, {
			Name: "side", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}

	// The other runtime sees the pod, managed by its Runtime (in this process), running and ready.
	rec := waitRecord(t, ctx, other, name, "running and ready", func(r podlife.PodRecord) bool {
		return r.Status.Phase == podlife.PhaseRunning && every(r.Status.ContainerStatuses, runningReady)
	})
	if rec.Manager != os.Getpid() || !rec.Managed() {
		t.Errorf("manager %d (managed %v), want %d: this process manages the pod", rec.Manager, rec.Managed(), os.Getpid())
	}
	if rec.Name != name || rec.Namespace != "default" || rec.UID != pod.UID() || rec.Dir != pod.Sandbox().Dir() {
		t.Errorf("record name %q namespace %q uid %q dir %q, want %q default %q %q",
			rec.Name, rec.Namespace, rec.UID, rec.Dir, name, pod.UID(), pod.Sandbox().Dir())
	}
	if len(rec.Status.ContainerStatuses) != 2 || rec.Status.ContainerStatuses[0].Name != "app" || rec.Status.ContainerStatuses[1].Name != "side" {
		t.Errorf("container statuses %+v, want app and side", rec.Status.ContainerStatuses)
	}
	if got := rec.Status.Condition(conditions.PodReady).Status; got != "True" {
		t.Errorf("Ready condition %q, want True", got)
	}
	if rec.Status.Reason != "" {
		t.Errorf("reason %q, want none for a managed pod", rec.Status.Reason)
	}
	recs, err := other.ListPods(ctx)
	if err != nil {
		t.Fatalf("ListPods: %v", err)
	}
	if len(recs) != 1 || recs[0].Name != name || recs[0].UID != pod.UID() || recs[0].Manager != os.Getpid() {
		t.Errorf("ListPods %+v, want the one pod, managed by pid %d", recs, os.Getpid())
	}
	// Its manager's ListPods shows it too (its live status).
	if recs, err := h.rt.ListPods(ctx); err != nil || len(recs) != 1 || recs[0].Manager != os.Getpid() {
		t.Errorf("manager's ListPods %+v, %v, want the pod", recs, err)
	}

	// Its logs are readable from the record.
	files := rec.LogFiles("app")
	if len(files) != 1 {
		t.Fatalf("log files of app %v, want one", files)
	}
	c, _ := pod.Container("app")
	if files[0] != podlife.LogPath(c) {
		t.Errorf("log file %s, want the container's %s", files[0], podlife.LogPath(c))
	}
	waitLogLine(t, files[0], "stdout", "hello-from-app")
	if f := rec.LogFiles("nosuch"); len(f) != 0 {
		t.Errorf("log files of a missing container %v, want none", f)
	}

	// Exec from the other runtime: separate streams, the exit code, stdin.
	var o, e bytes.Buffer
	code, err := execPod(ctx, other, name, "app", []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, podlife.ExecIO{Stdout: &o, Stderr: &e})
	if err != nil || code != 3 {
		t.Errorf("Exec: code %d, err %v, want 3, nil", code, err)
	}
	if o.String() != "out\n" || e.String() != "err\n" {
		t.Errorf("Exec stdout %q stderr %q, want %q %q", o.String(), e.String(), "out\n", "err\n")
	}
	var in bytes.Buffer
	ectx, ecancel := context.WithTimeout(ctx, 30*time.Second)
	code, err = execPod(ectx, other, name, "side", []string{"/bin/cat"}, podlife.ExecIO{Stdin: strings.NewReader("from-stdin\n"), Stdout: &in})
	ecancel()
	if err != nil || code != 0 || in.String() != "from-stdin\n" {
		t.Errorf("Exec cat: code %d, err %v, stdout %q, want 0, nil, %q (stdin closed at its end)", code, err, in.String(), "from-stdin\n")
	}
	if _, err := execPod(ctx, other, "nosuch", "app", []string{"/bin/true"}, podlife.ExecIO{}); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("Exec in a missing pod: %v, want ErrNotFound", err)
	}
	if _, err := execPod(ctx, other, name, "nosuch", []string{"/bin/true"}, podlife.ExecIO{}); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("Exec in a missing container: %v, want ErrNotFound", err)
	}

	// Pod.Stop from the other runtime: the manager stops the pod its own way.
	if err := stopPod(ctx, other, name); err != nil {
		t.Fatalf("Pod.Stop: %v", err)
	}
	waitEvent(t, ctx, pod, "", reasons.Stopped)
	if b, err := os.ReadFile(filepath.Join(marks, "prestop")); err != nil || string(b) != "prestop-ran\n" {
		t.Errorf("preStop marker %q, %v, want %q: the manager's preStop hook ran", b, err, "prestop-ran\n")
	}
	if k := events(pod, "app", reasons.Killing); len(k) != 1 {
		t.Errorf("Killing events of app %v, want one", k)
	}
	st := pod.Status()
	for _, cs := range st.ContainerStatuses {
		if tt := cs.State.Terminated; tt == nil || tt.ExitCode != 0 {
			t.Errorf("%s: state %+v, want terminated with exit code 0 (its TERM trap)", cs.Name, cs.State)
		}
	}
	if st.Phase != podlife.PhaseSucceeded {
		t.Errorf("phase %s after the stop, want Succeeded", st.Phase)
	}
	if _, err := h.rt.Pod(name); err != nil {
		t.Errorf("the manager forgot the stopped pod: %v", err)
	}
	rec = waitRecord(t, ctx, other, name, "terminated", func(r podlife.PodRecord) bool {
		return r.Status.Phase == podlife.PhaseSucceeded && every(r.Status.ContainerStatuses, terminated)
	})
	if rec.Manager != os.Getpid() {
		t.Errorf("manager of the stopped pod %d, want %d: it still manages it", rec.Manager, os.Getpid())
	}

	// Pod.Remove from the other runtime: the manager removes the pod.
	if err := removePod(ctx, other, name); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
	waitEvent(t, ctx, pod, "", reasons.Removed)
	if ps := h.rt.Pods(); len(ps) != 0 {
		t.Errorf("manager's pods %v after Pod.Remove, want none", ps)
	}
	if _, err := os.Stat(filepath.Join(h.stateDir, "pods", name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pod dir after Pod.Remove: %v, want it gone", err)
	}
	if recs, err := other.ListPods(ctx); err != nil || len(recs) != 0 {
		t.Errorf("ListPods after Pod.Remove: %+v, %v, want none", recs, err)
	}
	if _, err := other.LookupPod(ctx, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("LookupPod after Pod.Remove: %v, want ErrNotFound", err)
	}
	if err := stopPod(ctx, other, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("Pod.Stop of a removed pod: %v, want ErrNotFound", err)
	}
	if err := removePod(ctx, other, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("Pod.Remove of a removed pod: %v, want ErrNotFound", err)
	}
}

// Two Runtimes of one process, each with pods on the same state directory, each control the
// other's pods through the other's control socket (they must not share one).
func TestOtherProcessBothManaging(t *testing.T) {
	h := newHarness(t)
	other := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(10 * time.Second),
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}}
	}
	a, err := h.rt.Run(ctx, spec("a"))
	if err != nil {
		t.Fatalf("Run a: %v", err)
	}
	b, err := other.Run(ctx, spec("b"))
	if err != nil {
		t.Fatalf("Run b: %v", err)
	}
	t.Cleanup(func() { // b is not the harness runtime's
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := b.Remove(ctx); err != nil {
			t.Errorf("remove b: %v", err)
		}
	})
	for _, rt := range []*podlife.Runtime{h.rt, other} {
		recs, err := rt.ListPods(ctx)
		if err != nil || len(recs) != 2 || !recs[0].Managed() || !recs[1].Managed() {
			t.Errorf("ListPods %+v, %v, want a and b, both managed", recs, err)
		}
	}
	if err := stopPod(ctx, other, "a"); err != nil {
		t.Fatalf("other.Pod.Stop(a): %v", err)
	}
	waitEvent(t, ctx, a, "", reasons.Stopped)
	if err := stopPod(ctx, h.rt, "b"); err != nil {
		t.Fatalf("h.rt.Pod.Stop(b): %v", err)
	}
	waitEvent(t, ctx, b, "", reasons.Stopped)
	if err := removePod(ctx, other, "a"); err != nil {
		t.Fatalf("other.Pod.Remove(a): %v", err)
	}
	if _, err := h.rt.Pod("a"); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("a still in its runtime after Pod.Remove: %v", err)
	}
}

// A pod whose manager is gone (its Runtime closed, as if its process died) keeps running,
// unsupervised. Another Runtime shows it unmanaged, its containers still running but not ready;
// it can exec in it, stop it (the stop signal, SIGKILL after the grace period, network and
// namespaces released) and remove everything of it: the harness's leak check finds nothing.
func TestUnmanagedPodCleanedUp(t *testing.T) {
	h := newHarness(t)
	gone := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "orphan"
	// No Runtime has the pod once gone is closed: if the test stops half-way, remove it before
	// the harness's leak check (cleanups run last registered first).
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: Pod.Remove: %v", err)
		}
	})
	mem := []podlife.VolumeMount{{Name: "mem", MountPath: "/mem"}}
	pod, err := gone.Run(ctx, podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(30 * time.Second),
		Volumes: []podlife.Volume{{Name: "mem", EmptyDir: &podlife.EmptyDirVolume{Medium: podlife.MediumMemory}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, VolumeMounts: mem, Command: []string{"/bin/sh", "-c", loopForever},
		}, {
			// PID 1 without a handler: SIGTERM is ignored, only SIGKILL ends it.
			Name: "stubborn", Image: testImage, VolumeMounts: mem, Command: []string{"/bin/sh", "-c", "while :; do sleep 0.1; done"},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	uid, dir := pod.UID(), pod.Sandbox().Dir()
	if !pod.Sandbox().IP().IsValid() {
		t.Fatalf("no pod IP: the pod network is not attached")
	}
	waitRecord(t, ctx, h.rt, name, "running and ready", func(r podlife.PodRecord) bool {
		return r.Managed() && every(r.Status.ContainerStatuses, runningReady)
	})
	if mounts, err := podlifetest.HostLeaks(filepath.Join(dir, "volumes"), "", "", ""); err != nil || len(mounts) != 1 {
		t.Fatalf("mounts under the volumes dir %v, %v, want the memory emptyDir's tmpfs", mounts, err)
	}

	// The manager goes; the pod keeps running.
	if err := gone.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rec, err := h.rt.LookupPod(ctx, name)
	if err != nil {
		t.Fatalf("LookupPod: %v", err)
	}
	if rec.Manager != 0 || rec.Managed() {
		t.Errorf("manager %d, want 0: its Runtime is closed", rec.Manager)
	}
	if rec.UID != uid || rec.Dir != dir {
		t.Errorf("record uid %q dir %q, want %q %q", rec.UID, rec.Dir, uid, dir)
	}
	if rec.Status.Reason != "Unmanaged" || rec.Status.Message == "" {
		t.Errorf("reason %q message %q, want Unmanaged with an explanation", rec.Status.Reason, rec.Status.Message)
	}
	if rec.Status.Phase != podlife.PhaseRunning {
		t.Errorf("phase %s, want Running", rec.Status.Phase)
	}
	for _, cs := range rec.Status.ContainerStatuses {
		if cs.State.Running == nil || cs.Ready {
			t.Errorf("%s: state %+v ready %v, want running (its task lives) and not ready (nothing probes it)", cs.Name, cs.State, cs.Ready)
		}
	}
	if got := rec.Status.Condition(conditions.PodReady).Status; got != "False" {
		t.Errorf("Ready condition %q, want False", got)
	}
	if recs, err := h.rt.ListPods(ctx); err != nil || len(recs) != 1 || recs[0].Manager != 0 {
		t.Errorf("ListPods %+v, %v, want the unmanaged pod", recs, err)
	}
	var o bytes.Buffer
	if code, err := execPod(ctx, h.rt, name, "app", []string{"/bin/sh", "-c", "echo still-here > /mem/x; cat /mem/x"}, podlife.ExecIO{Stdout: &o}); err != nil || code != 0 || o.String() != "still-here\n" {
		t.Errorf("Exec in the unmanaged pod: code %d, err %v, stdout %q, want 0, nil, %q", code, err, o.String(), "still-here\n")
	}

	// Stopped from here: app ends on SIGTERM, stubborn is killed once the grace period is over.
	t0 := time.Now()
	if err := stopPod(ctx, h.rt, name, podlife.WithGracePeriod(2*time.Second)); err != nil {
		t.Fatalf("Pod.Stop: %v", err)
	}
	if took := time.Since(t0); took < 2*time.Second {
		t.Errorf("Pod.Stop took %v, want at least the 2 s grace period (stubborn ignores SIGTERM)", took)
	}
	rec, err = h.rt.LookupPod(ctx, name)
	if err != nil {
		t.Fatalf("LookupPod after Pod.Stop: %v", err)
	}
	want := map[string]int{"app": 0, "stubborn": 137}
	for _, cs := range rec.Status.ContainerStatuses {
		if tt := cs.State.Terminated; tt == nil || tt.ExitCode != want[cs.Name] {
			t.Errorf("%s after Pod.Stop: state %+v, want terminated with exit code %d", cs.Name, cs.State, want[cs.Name])
		}
	}
	if rec.Status.Phase != podlife.PhaseFailed {
		t.Errorf("phase after Pod.Stop %s, want Failed (stubborn was killed)", rec.Status.Phase)
	}
	nctx := namespaces.WithNamespace(ctx, h.ns)
	ctrs, err := env.client.Containers(nctx, fmt.Sprintf("labels.%q==%s", podlife.LabelPodUID, uid))
	if err != nil || len(ctrs) != 2 {
		t.Fatalf("containers of the pod after Pod.Stop: %d, %v, want 2 (they stay until removed)", len(ctrs), err)
	}
	for _, ctr := range ctrs {
		if _, err := ctr.Task(nctx, nil); !errdefs.IsNotFound(err) {
			t.Errorf("task of %s after Pod.Stop: %v, want none", ctr.ID(), err)
		}
	}
	// The network and the pinned namespaces are released; the volume stays until removal.
	if leaks, err := podlifetest.HostLeaks(filepath.Join(dir, "ns"), h.bridge.Bridge, h.bridge.Name, filepath.Join(h.stateDir, "cni", "ipam")); err != nil || len(leaks) > 0 {
		t.Errorf("after Pod.Stop: %v, %v, want no namespace pin, veth or IP left", leaks, err)
	}

	// Removed from here: nothing of it is left (the harness's leak check says the rest).
	if err := removePod(ctx, h.rt, name); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
	if _, err := h.rt.LookupPod(ctx, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("LookupPod after Pod.Remove: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pod dir after Pod.Remove: %v, want it gone", err)
	}
	if ctrs, err := env.client.Containers(nctx, fmt.Sprintf("labels.%q==%s", podlife.LabelPodUID, uid)); err != nil || len(ctrs) != 0 {
		t.Errorf("containers of the pod after Pod.Remove: %d, %v, want none", len(ctrs), err)
	}
}
