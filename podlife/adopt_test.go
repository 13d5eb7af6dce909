package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// adoptSpec is a pod whose container counts its starts in /marks/starts, is ready while
// /marks/ready exists, is live while /marks/die does not (each start removes it), and whose
// preStop hook writes /marks/prestop.
func adoptSpec(name, marks string) podlife.PodSpec {
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(10 * time.Second),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
			Command: []string{"/bin/sh", "-c",
				"rm -f /marks/die; echo start >> /marks/starts; trap 'exit 0' TERM; while true; do sleep 1; done"},
			PreStop: hook.Exec("/bin/sh", "-c", "echo prestop-ran > /marks/prestop"),
			// Their timeout is the default (1 s) on a developer's machine, more on a slow host
			// (an exec takes seconds under emulation).
			ReadinessProbe: &probe.Spec{Prober: probe.Exec("test", "-f", "/marks/ready"), Period: time.Second, Timeout: budget(time.Second), FailureThreshold: 1},
			LivenessProbe:  &probe.Spec{Prober: probe.Exec("test", "!", "-f", "/marks/die"), Period: time.Second, Timeout: budget(time.Second), FailureThreshold: 1},
		}},
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return strings.Count(string(b), "\n")
}

// A Runtime runs a pod and closes (the pod keeps running); another adopts it: same container
// instance, restart count unchanged, readiness followed again, a liveness failure after the
// adoption restarts the container, Stop runs preStop, Remove leaves nothing. Around it: a live
// manager and a changed spec are refused, and of two concurrent adopters exactly one wins.
func TestAdoptResumesSupervision(t *testing.T) {
	marks := t.TempDir()
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	const name = "adoptee"
	spec := adoptSpec(name, marks)
	if err := os.WriteFile(filepath.Join(marks, "ready"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pod, err := first.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	before := pod.Status().ContainerStatuses[0]

	// Its manager lives: refused.
	_, err = h.rt.Adopt(ctx, spec)
	var managed *podlife.ManagedError
	if !errors.Is(err, podlife.ErrManaged) || !errors.As(err, &managed) || managed.PID != os.Getpid() {
		t.Fatalf("Adopt of a managed pod: %v, want a *ManagedError naming pid %d", err, os.Getpid())
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// A changed spec: refused, naming the field.
	changed := adoptSpec(name, marks)
	changed.Containers[0].Command = []string{"/bin/sh", "-c", "sleep 1000"}
	changed.RestartPolicy = podlife.RestartOnFailure
	_, err = h.rt.Adopt(ctx, changed)
	var sc *podlife.SpecChangedError
	if !errors.Is(err, podlife.ErrSpecChanged) || !errors.As(err, &sc) {
		t.Fatalf("Adopt with a changed spec: %v, want a *SpecChangedError", err)
	}
	if strings.Join(sc.Fields, " ") != "containers[app].command restartPolicy" {
		t.Errorf("changed fields %q, want [containers[app].command restartPolicy]", sc.Fields)
	}
	probeChanged := adoptSpec(name, marks)
	probeChanged.Containers[0].LivenessProbe.Prober = probe.Exec("true")
	if _, err = h.rt.Adopt(ctx, probeChanged); !errors.As(err, &sc) || strings.Join(sc.Fields, " ") != "containers[app].livenessProbe" {
		t.Errorf("Adopt with another liveness command: %v, want a *SpecChangedError naming containers[app].livenessProbe", err)
	}

	// Two adopters at once: exactly one wins.
	second := h.another(t)
	var wg sync.WaitGroup
	var pods [2]*podlife.Pod
	var errs [2]error
	for i, rt := range []*podlife.Runtime{h.rt, second} {
		wg.Go(func() { pods[i], errs[i] = rt.Adopt(ctx, spec) })
	}
	wg.Wait()
	var adopted *podlife.Pod
	switch {
	case errs[0] == nil && errors.Is(errs[1], podlife.ErrManaged):
		adopted = pods[0]
	case errs[1] == nil && errors.Is(errs[0], podlife.ErrManaged):
		adopted = pods[1]
	default:
		t.Fatalf("concurrent adoptions: %v and %v, want one success and one ErrManaged", errs[0], errs[1])
	}
	waitEvent(t, ctx, adopted, "", reasons.Adopted)

	// The same instance, not restarted.
	after := adopted.Status().ContainerStatuses[0]
	if after.ContainerID != before.ContainerID || after.RestartCount != 0 || after.State.Running == nil ||
		!after.State.Running.StartedAt.Equal(before.State.Running.StartedAt) {
		t.Errorf("after adoption: %+v, want the running instance %s started at %v, restart count 0", after, before.ContainerID, before.State.Running.StartedAt)
	}
	if n := countLines(t, filepath.Join(marks, "starts")); n != 1 {
		t.Errorf("%d starts, want 1: adoption restarted the container", n)
	}
	rec, err := h.rt.LookupPod(ctx, name)
	if err != nil || rec.Manager != os.Getpid() {
		t.Errorf("record after adoption: manager %d (%v), want %d", rec.Manager, err, os.Getpid())
	}

	// Readiness is probed again: not ready without the file, ready with it.
	if err := adopted.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady after adoption: %v", err)
	}
	if err := os.Remove(filepath.Join(marks, "ready")); err != nil {
		t.Fatal(err)
	}
	if _, err := adopted.WaitFor(ctx, func(s podlife.PodStatus) bool { return !s.ContainerStatuses[0].Ready }); err != nil {
		t.Fatalf("never unready after its readiness file went: %v", err)
	}
	if err := os.WriteFile(filepath.Join(marks, "ready"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := adopted.WaitReady(ctx); err != nil {
		t.Fatalf("never ready again: %v", err)
	}

	// Liveness is probed again: a failure restarts the container, once.
	if err := os.WriteFile(filepath.Join(marks, "die"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := adopted.WaitFor(ctx, func(s podlife.PodStatus) bool {
		c := s.ContainerStatuses[0]
		return c.RestartCount == 1 && c.State.Running != nil
	})
	if err != nil {
		t.Fatalf("no restart after the liveness probe failed: %v", err)
	}
	if got := st.ContainerStatuses[0].ContainerID; got == before.ContainerID {
		t.Errorf("restarted container kept its ID %s", got)
	}
	waitEvent(t, ctx, adopted, "app", reasons.Unhealthy)

	// Stop runs the preStop hook; Remove leaves nothing (the harness checks).
	if err := adopted.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(marks, "prestop")); err != nil || string(b) != "prestop-ran\n" {
		t.Errorf("preStop mark %q (%v), want prestop-ran", b, err)
	}
	if err := adopted.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := h.rt.LookupPod(ctx, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("LookupPod after Remove: %v, want ErrNotFound", err)
	}
}
