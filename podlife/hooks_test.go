package podlife_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

func sharedVolume() []podlife.Volume {
	return []podlife.Volume{{Name: "shared", EmptyDir: &podlife.EmptyDirVolume{}}}
}

var sharedMount = []podlife.VolumeMount{{Name: "shared", MountPath: "/shared"}}

// A failing postStart: FailedPostStartHook event without details, Killing "FailedPostStartHook",
// preStop runs, and the container waits in PostStartHookError with the details.
func TestPostStartFailure(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const f = "/shared/message"
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "poststart-fails", Volumes: sharedVolume(), TerminationGracePeriod: ptr(10 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, VolumeMounts: sharedMount,
			Command:   []string{"/bin/sh", "-c", stampCmd(f, "app", "main") + "; " + loopForever},
			PostStart: hook.Exec("/bin/sh", "-c", "echo boom-output; exit 3"),
			PreStop:   hook.Exec("/bin/sh", "-c", stampCmd(f, "app", "prestop")),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v (a postStart failure is not a Run error)", err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		w := s.ContainerStatuses[0].State.Waiting
		return w != nil && w.Reason == reasons.PostStartHookError
	})
	if err != nil {
		t.Fatalf("waiting for PostStartHookError: %v; status %+v", err, st)
	}
	cs := st.ContainerStatuses[0]
	if !strings.Contains(cs.State.Waiting.Message, "boom-output") {
		t.Errorf("waiting message %q does not carry the hook's output", cs.State.Waiting.Message)
	}
	if cs.LastState.Terminated == nil || cs.Ready {
		t.Errorf("lastState %+v ready %v, want a terminated last state and not ready", cs.LastState, cs.Ready)
	}
	var failed, killing podlife.Event
	for _, e := range pod.Events() {
		switch e.Reason {
		case reasons.FailedPostStartHook:
			failed = e
		case reasons.Killing:
			killing = e
		}
	}
	if failed.Message != "PostStartHook failed" || failed.Type != podlife.EventWarning {
		t.Errorf("FailedPostStartHook event %+v, want Warning with the fixed text", failed)
	}
	if killing.Message != "FailedPostStartHook" || killing.Time.Before(failed.Time) {
		t.Errorf("Killing event %+v, want message FailedPostStartHook after %v", killing, failed.Time)
	}
	lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
	if _, ok := first(lines, "app", "prestop"); !ok {
		t.Errorf("preStop did not run on the postStart kill: %+v", lines)
	}
}

// preStop runs before the stop signal and inside the grace period.
func TestSmokePreStopBeforeStopSignal(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const f = "/shared/message"
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "prestop", Volumes: sharedVolume(), TerminationGracePeriod: ptr(20 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, VolumeMounts: sharedMount,
			Command: []string{"/bin/sh", "-c", "on_term() { " + stampCmd(f, "app", "term") + "; exit 0; }; trap on_term TERM; while :; do sleep 0.1; done"},
			PreStop: hook.Exec("/bin/sh", "-c", stampCmd(f, "app", "prestop-begin")+"; sleep 1; "+stampCmd(f, "app", "prestop-end")),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
	begin, ok1 := first(lines, "app", "prestop-begin")
	end, ok2 := first(lines, "app", "prestop-end")
	term, ok3 := first(lines, "app", "term")
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("missing lines: %+v", lines)
	}
	if term.at < end.at {
		t.Errorf("SIGTERM handled at %.2f before preStop ended at %.2f", term.at, end.at)
	}
	if term.at-begin.at < 1 || term.at-begin.at > 20 {
		t.Errorf("SIGTERM %.2fs after preStop began, want within [1s, grace 20s]", term.at-begin.at)
	}
	st := pod.Status()
	if tt := st.ContainerStatuses[0].State.Terminated; tt == nil || tt.ExitCode != 0 {
		t.Errorf("state %+v, want terminated with exit code 0 (the trap exits 0)", st.ContainerStatuses[0].State)
	}
	if st.Phase != podlife.PhaseSucceeded {
		t.Errorf("phase %s after a clean stop, want Succeeded", st.Phase)
	}
}

// A container that ignores SIGTERM is killed when the grace period is over.
func TestSmokeIgnoresSIGTERMKilledAtGrace(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const grace = 3 * time.Second
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "stubborn", TerminationGracePeriod: ptr(grace),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			Command: []string{"/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	killing := eventTime(t, pod, "app", reasons.Killing)
	exited := eventTime(t, pod, "app", reasons.Exited)
	if d := exited.Sub(killing); d < grace || d > grace+15*time.Second {
		t.Errorf("exited %v after Killing, want about the grace period %v", d, grace)
	}
	tt := pod.Status().ContainerStatuses[0].State.Terminated
	if tt == nil || tt.ExitCode != 137 || tt.Signal != 9 {
		t.Errorf("terminated %+v, want exit code 137 (SIGKILL)", tt)
	}
}

// Stopping a pod whose postStart hangs finishes within the grace period (the kubelet cannot:
// kubernetes#116032), and the next container is never started.
func TestSmokeStopDuringHungPostStart(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const grace = 2 * time.Second
	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "hung-poststart", TerminationGracePeriod: ptr(grace),
		Containers: []podlife.ContainerSpec{
			{Name: "hangs", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				PostStart: hook.Exec("/bin/sh", "-c", "sleep 3600")},
			{Name: "next", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
		},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	waitEvent(t, ctx, pod, "hangs", reasons.Started)
	begin := time.Now()
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if d := time.Since(begin); d > grace+15*time.Second {
		t.Errorf("Stop took %v with a hung postStart, want about the grace period %v", d, grace)
	}
	if err := pod.WaitStarted(ctx); err != nil {
		t.Errorf("WaitStarted after stop: %v", err)
	}
	st := pod.Status()
	if st.ContainerStatuses[1].State.Waiting == nil {
		t.Errorf("container next: %+v, want never started", st.ContainerStatuses[1].State)
	}
	for _, e := range pod.Events() {
		if e.Container == "next" && e.Reason == reasons.Started {
			t.Errorf("container next was started during the stop: %v", e)
		}
	}
}
