package podlife_test

import (
	"context"
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
