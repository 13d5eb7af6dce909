package podlife_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// waitText polls text until it contains want, for at most 30 s.
func waitText(t *testing.T, what, want string, text func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never had %q: %q", what, want, text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An interactive ephemeral container's output is in its log (Pod.Logs), as under the kubelet,
// with no client attached, and attached clients still get it: a TTY container's, and a stdin
// container's whose stdin the client writes.
func TestEphemeralInteractiveLogs(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod := ephemeralPod(t, ctx, h, "ephem-log")
	logs := func(name string) func() string {
		return func() string {
			var b lockedBuffer
			_ = pod.Logs(ctx, name, podlife.LogOptions{}, &b)
			return string(b.Bytes())
		}
	}

	// TTY and stdin, nobody attached: the output is in the log, as the conformance spec reads it.
	if _, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{Stdin: true, TTY: true, ContainerSpec: podlife.ContainerSpec{
		Name: "tty", Image: testImage,
		Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; while true; do echo polo; sleep 0.2; done"}}}); err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	waitText(t, "the TTY container's log", "polo", logs("tty"))
	// An attached client gets the output too, from then on.
	var seen lockedBuffer
	actx, acancel := context.WithCancel(ctx)
	attached := make(chan error, 1)
	go func() {
		_, err := pod.Attach(actx, "tty", podlife.ExecIO{Stdout: &seen})
		attached <- err
	}()
	waitText(t, "the attached client's output", "polo", func() string { return string(seen.Bytes()) })
	acancel()
	if err := <-attached; err == nil {
		t.Errorf("Attach ended by its context: nil error, want the context's")
	}

	// Stdin without a TTY: the client's input reaches the process, its output the client and the log.
	if _, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{Stdin: true, ContainerSpec: podlife.ContainerSpec{
		Name: "cat", Image: testImage,
		Command: []string{"/bin/sh", "-c", "cat"}}}); err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	// (A client's end of stdin does not end the process yet: the attach is ended by its context.)
	var out lockedBuffer
	cctx, ccancel := context.WithCancel(ctx)
	go func() {
		_, err := pod.Attach(cctx, "cat", podlife.ExecIO{Stdin: strings.NewReader("marco\n"), Stdout: &out})
		attached <- err
	}()
	waitText(t, "the attached client's output", "marco\n", func() string { return string(out.Bytes()) })
	ccancel()
	<-attached
	waitText(t, "cat's log", "marco\n", logs("cat"))
}

// An adopter takes over the copy of a running interactive container's output to its log: what
// the container prints after its manager closed its Runtime reaches the log once the pod is
// adopted.
func TestEphemeralInteractiveLogsAdopted(t *testing.T) {
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := podlife.PodSpec{Name: "ephem-adopt", TerminationGracePeriod: ptr(3 * time.Second), Containers: []podlife.ContainerSpec{
		{Name: "target", Image: testImage, Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.1; done"}}}}
	pod, err := first.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{TTY: true, ContainerSpec: podlife.ContainerSpec{
		Name: "tty", Image: testImage,
		Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; i=0; while true; do i=$((i+1)); echo line-$i; sleep 0.2; done"}}}); err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	logs := func() string {
		var b lockedBuffer
		_ = podOf(t, h.rt, spec.Name).Logs(ctx, "tty", podlife.LogOptions{}, &b)
		return string(b.Bytes())
	}
	waitText(t, "the TTY container's log", "line-2\r\n", logs)
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Its output waits in the FIFO: the log stops growing (allow the line in flight).
	time.Sleep(time.Second)
	frozen := strings.Count(logs(), "line-")
	time.Sleep(time.Second)
	if n := strings.Count(logs(), "line-"); n > frozen+1 {
		t.Fatalf("the log grew from %d to %d lines with no manager: the closed Runtime still copies", frozen, n)
	}
	adopted, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	waitText(t, "the TTY container's log after the adoption", fmt.Sprintf("line-%d\r\n", frozen+10), logs)
	if err := adopted.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}
