package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// Pod.Logs reads a container's log from the Runtime that manages the pod and from another
// one on the same state directory (as another process would): a follower started while the
// container writes gets every line, in order, and returns once the pod ended; a plain read gets
// the same lines; a missing container or previous attempt is ErrNotFound.
func TestRuntimeLogs(t *testing.T) {
	h := newHarness(t)
	other := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "logs"
	// The container writes lines before and after the followers start.
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: name, RestartPolicy: podlife.RestartNever,
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			Command: []string{"/bin/sh", "-c", "echo one; echo two; sleep 2; echo three; sleep 1; echo four"},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	follow := func(rt *podlife.Runtime) <-chan string {
		out := make(chan string, 1)
		p := podOf(t, rt, name)
		go func() {
			var b bytes.Buffer
			if err := p.Logs(ctx, "app", podlife.LogOptions{Follow: true}, &b); err != nil {
				t.Errorf("Logs follow: %v", err)
			}
			out <- b.String()
		}()
		return out
	}
	mine, theirs := follow(h.rt), follow(other)
	const want = "one\ntwo\nthree\nfour\n"
	for who, ch := range map[string]<-chan string{"manager": mine, "other runtime": theirs} {
		select {
		case got := <-ch:
			if got != want {
				t.Errorf("%s: followed %q, want %q", who, got, want)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the follower did not return after the pod ended", who)
		}
	}
	if st := pod.Status(); st.Phase != podlife.PhaseSucceeded {
		t.Errorf("phase %s, want Succeeded (a follower ends with its pod)", st.Phase)
	}
	var b bytes.Buffer
	if err := podOf(t, other, name).Logs(ctx, "app", podlife.LogOptions{}, &b); err != nil || b.String() != want {
		t.Errorf("Logs: %q, %v; want %q", b.String(), err, want)
	}
	if err := podOf(t, other, name).Logs(ctx, "app", podlife.LogOptions{Previous: true}, &b); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("Logs previous of a first attempt: %v, want ErrNotFound", err)
	}
	if err := podOf(t, other, name).Logs(ctx, "nosuch", podlife.LogOptions{}, &b); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("Logs of a missing container: %v, want ErrNotFound", err)
	}
	if err := podOf(t, other, name).Logs(ctx, "../..", podlife.LogOptions{}, &b); !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("Logs of a path: %v, want ErrInvalidSpec", err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}
