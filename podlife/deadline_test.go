package podlife_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// A running pod's deadline is set and shortened (never lengthened), through its manager's
// control socket as well as locally; the deadline set is kept by an adopter, given the spec as
// started or as updated; a deadline already past ends the pod at once, Failed
// DeadlineExceeded, and not before the call.
func TestSetActiveDeadline(t *testing.T) {
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const name = "deadline-set"
	spec := podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage,
			Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"}}},
	}
	if _, err := first.Run(ctx, spec); err != nil {
		t.Fatalf("Run: %v", err)
	}
	remote := podOf(t, h.rt, name) // managed by first: through its control socket
	for _, bad := range []time.Duration{0, -time.Second} {
		err := remote.SetActiveDeadline(ctx, bad)
		if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), "spec.activeDeadlineSeconds") {
			t.Errorf("SetActiveDeadline(%v): %v, want ErrInvalidSpec naming spec.activeDeadlineSeconds", bad, err)
		}
	}
	if err := remote.SetActiveDeadline(ctx, time.Hour); err != nil {
		t.Fatalf("SetActiveDeadline(1h) through the control socket: %v", err)
	}
	err := remote.SetActiveDeadline(ctx, 2*time.Hour)
	if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), "spec.activeDeadlineSeconds") {
		t.Errorf("SetActiveDeadline(2h) after 1h: %v, want ErrInvalidSpec naming spec.activeDeadlineSeconds", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := podOf(t, h.rt, name).SetActiveDeadline(ctx, time.Minute); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("SetActiveDeadline on an unmanaged pod: %v, want ErrNotFound", err)
	}

	// Adopters given the spec as updated (as an API server holds it), or with a deadline set
	// where the pod started with none but longer than the one set: accepted, the shorter
	// deadline kept.
	updated, longer := spec, spec
	updated.ActiveDeadline, longer.ActiveDeadline = ptr(time.Hour), ptr(2*time.Hour)
	for _, s := range []podlife.PodSpec{updated, longer} {
		adopter := h.another(t)
		pod, err := adopter.Adopt(ctx, s)
		if err != nil {
			t.Fatalf("Adopt with the deadline %v: %v", *s.ActiveDeadline, err)
		}
		if err := pod.SetActiveDeadline(ctx, 90*time.Minute); !errors.Is(err, podlife.ErrInvalidSpec) {
			t.Errorf("SetActiveDeadline(90m) after the adoption with the deadline %v: %v, want ErrInvalidSpec (1h in effect)", *s.ActiveDeadline, err)
		}
		if err := adopter.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}

	// An adopter with the spec as started (no deadline): accepted, the deadline set kept.
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt with the spec as started: %v", err)
	}
	if err := pod.SetActiveDeadline(ctx, 90*time.Minute); !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("SetActiveDeadline(90m) after the adoption with the spec as started: %v, want ErrInvalidSpec (1h in effect)", err)
	}
	if st := pod.Status(); st.Phase != podlife.PhaseRunning {
		t.Fatalf("phase %s before the deadline was shortened, want Running", st.Phase)
	}

	// Shortened to 2 s: the pod has run longer, it ends now.
	called := time.Now()
	if err := pod.SetActiveDeadline(ctx, 2*time.Second); err != nil {
		t.Fatalf("SetActiveDeadline(2s): %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseFailed || st.Reason != reasons.DeadlineExceeded {
		t.Fatalf("phase %s reason %q (%v), want Failed DeadlineExceeded", st.Phase, st.Reason, err)
	}
	term := st.ContainerStatuses[0].State.Terminated
	if term == nil {
		t.Fatalf("container not terminated: %+v", st.ContainerStatuses[0].State)
	}
	// The status's times are whole seconds (RFC 3339), as the kubelet's.
	if term.FinishedAt.Before(called.Truncate(time.Second)) {
		t.Errorf("container finished at %v, before the call at %v", term.FinishedAt, called)
	}
	if len(events(pod, "", reasons.DeadlineExceeded)) != 1 {
		t.Errorf("no DeadlineExceeded event")
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}
