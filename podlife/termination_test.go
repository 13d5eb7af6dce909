package podlife_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// terminationPod runs a one-container pod (restartPolicy Never) to its end and returns its
// container's terminated state.
func terminationPod(t *testing.T, ctx context.Context, rt *podlife.Runtime, c podlife.ContainerSpec, phase podlife.Phase) *podlife.StateTerminated {
	t.Helper()
	c.Image = testImage
	pod, err := rt.Start(ctx, podlife.PodSpec{
		Name: "tm-" + c.Name, RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{c},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != phase {
		t.Fatalf("phase %s (%v), want %s", st.Phase, err, phase)
	}
	term := st.ContainerStatuses[0].State.Terminated
	if term == nil {
		t.Fatalf("container not terminated: %+v", st.ContainerStatuses[0].State)
	}
	return term
}

// The termination message tests of k8s.io/kubernetes test/e2e/common/node/runtime.go
// ("Container Runtime blackbox test ... on terminated container"), against real containerd and
// runc: the message comes from the file at terminationMessagePath (as root, and as a non-root
// user at a non-default path), or with FallbackToLogsOnError from the log of a failed container
// only; and as the kubelet reads it, the file's last 4096 bytes, a pod's messages sharing 12 KiB.
func TestTerminationMessage(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tests := []struct {
		name   string
		c      podlife.ContainerSpec
		phase  podlife.Phase
		want   string
		reason podlife.Reason
	}{
		// "should report termination message if TerminationMessagePath is set"
		{"from-file", podlife.ContainerSpec{Command: shCmd("/bin/echo -n DONE > /dev/termination-log"),
			TerminationMessagePath: "/dev/termination-log", SecurityContext: &podlife.SecurityContext{RunAsUser: ptr(int64(0))}},
			podlife.PhaseSucceeded, "DONE", reasons.Completed},
		// the same with the path left to its default
		{"default-path", podlife.ContainerSpec{Command: shCmd("/bin/echo -n DONE > /dev/termination-log; exit 3")},
			podlife.PhaseFailed, "DONE", reasons.Error},
		// "... as non-root user and at a non-default path"
		{"non-root", podlife.ContainerSpec{Command: shCmd("/bin/echo -n DONE > /dev/termination-custom-log"),
			TerminationMessagePath: "/dev/termination-custom-log", SecurityContext: &podlife.SecurityContext{RunAsUser: ptr(int64(1000))}},
			podlife.PhaseSucceeded, "DONE", reasons.Completed},
		// "... from log output if TerminationMessagePolicy FallbackToLogsOnError is set": a last
		// line without a newline, which the logger program holds until asked (the shim keeps
		// the container's pipes open until the task's deletion).
		{"fallback", podlife.ContainerSpec{Command: shCmd("/bin/echo -n DONE; /bin/false"),
			TerminationMessagePolicy: podlife.TerminationMessageFallbackToLogsOnError},
			podlife.PhaseFailed, "DONE", reasons.Error},
		{"fallback-streams", podlife.ContainerSpec{Command: shCmd("echo first; /bin/echo -n DONE >&2; exit 1"),
			TerminationMessagePolicy: podlife.TerminationMessageFallbackToLogsOnError},
			podlife.PhaseFailed, "first\nDONE", reasons.Error},
		// "... as empty when pod succeeds and TerminationMessagePolicy FallbackToLogsOnError is set"
		{"no-fallback-on-success", podlife.ContainerSpec{Command: shCmd("/bin/echo -n DONE; /bin/true"),
			TerminationMessagePolicy: podlife.TerminationMessageFallbackToLogsOnError},
			podlife.PhaseSucceeded, "", reasons.Completed},
		// "... from file when pod succeeds and TerminationMessagePolicy FallbackToLogsOnError is set"
		{"file-before-logs", podlife.ContainerSpec{Command: shCmd("/bin/echo -n OK > /dev/termination-log; /bin/echo DONE; exit 1"),
			TerminationMessagePolicy: podlife.TerminationMessageFallbackToLogsOnError},
			podlife.PhaseFailed, "OK", reasons.Error},
		// The log's last 80 lines: lines 21 to 100, with their newlines.
		{"fallback-tail", podlife.ContainerSpec{Command: shCmd("seq 1 100; exit 2"),
			TerminationMessagePolicy: podlife.TerminationMessageFallbackToLogsOnError},
			podlife.PhaseFailed, seqLines(21, 100), reasons.Error},
		// A message over 4096 bytes: its last 4096.
		{"long", podlife.ContainerSpec{Command: shCmd("{ head -c 1000 /dev/zero | tr '\\0' x; head -c 4093 /dev/zero | tr '\\0' a; echo -n END; } > /dev/termination-log")},
			podlife.PhaseSucceeded, strings.Repeat("a", 4093) + "END", reasons.Completed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.Name = tc.name
			term := terminationPod(t, ctx, h.rt, tc.c, tc.phase)
			if term.Message != tc.want || term.Reason != tc.reason {
				t.Errorf("terminated %s with message %q (%d bytes), want %s with %q", term.Reason, clip(term.Message), len(term.Message), tc.reason, clip(tc.want))
			}
		})
	}

	// Four containers share the pod's 12 KiB: each message is the first 3072 bytes of the last
	// 4096 of its file.
	t.Run("pod-share", func(t *testing.T) {
		var cs []podlife.ContainerSpec
		for _, n := range []string{"a", "b", "c", "d"} {
			cs = append(cs, podlife.ContainerSpec{Name: n, Image: testImage,
				Command: shCmd("{ head -c 1000 /dev/zero | tr '\\0' x; head -c 4096 /dev/zero | tr '\\0' " + n + "; } > /dev/termination-log")})
		}
		pod, err := h.rt.Start(ctx, podlife.PodSpec{Name: "tm-share", RestartPolicy: podlife.RestartNever, Containers: cs})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v)", st.Phase, err)
		}
		for _, cs := range st.ContainerStatuses {
			if m := cs.State.Terminated.Message; m != strings.Repeat(cs.Name, 3072) {
				t.Errorf("%s: message %q (%d bytes), want 3072 times %q", cs.Name, clip(m), len(m), cs.Name)
			}
		}
	})
}

// The fallback to the log when this process copies the containers' output (no logger
// program, podlife-node's default): runtime.go's "should report termination message from log
// output if TerminationMessagePolicy FallbackToLogsOnError is set" exactly, the last line
// without its newline; and both streams.
func TestTerminationMessageInProcessLogs(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) { c.ContainerLogger = "" })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct{ name, cmd, want string }{
		{"fallback", "/bin/echo -n DONE; /bin/false", "DONE"},
		{"streams", "echo first; /bin/echo -n DONE >&2; exit 1", "first\nDONE"},
	} {
		term := terminationPod(t, ctx, h.rt, podlife.ContainerSpec{Name: tc.name, Command: shCmd(tc.cmd),
			TerminationMessagePolicy: podlife.TerminationMessageFallbackToLogsOnError}, podlife.PhaseFailed)
		if term.Message != tc.want {
			t.Errorf("%s: message %q, want %q", tc.name, term.Message, tc.want)
		}
	}
}

// A restarted container's previous run keeps its message in lastState, each run writing a new
// file (the previous run's message is not seen by the next); the pod's removal leaves no file.
func TestTerminationMessageRestarts(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "tm-restarts", RestartPolicy: podlife.RestartOnFailure, TerminationGracePeriod: ptr(3 * time.Second),
		Volumes: sharedVolume(),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, VolumeMounts: sharedMount,
			// The first run fails with message "run 1"; the second finds an empty file and succeeds.
			Command: shCmd(`test -s /dev/termination-log && exit 9; if [ -e /shared/ran ]; then exit 0; fi; ` +
				`touch /shared/ran; echo -n "run 1" > /dev/termination-log; exit 1`)}},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v): %+v", st.Phase, err, st.ContainerStatuses)
	}
	cs := st.ContainerStatuses[0]
	last := cs.LastState.Terminated
	if cs.RestartCount != 1 || last == nil || last.Message != "run 1" || last.ExitCode != 1 || cs.State.Terminated.Message != "" {
		t.Errorf("status %+v (lastState %+v), want one restart, lastState exit 1 with message %q, state without", cs, last, "run 1")
	}
	dir := filepath.Join(h.stateDir, "pods")
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", "termination", "*"))
	if len(left) > 0 {
		t.Errorf("files left after the pod's removal: %v", left)
	}
}

// A container that exits while its pod has no manager: the adopter reads its message.
func TestTerminationMessageAdopted(t *testing.T) {
	marks := t.TempDir()
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := podlife.PodSpec{
		Name: "tm-adopted", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(3 * time.Second),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage,
			VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
			Command:      shCmd("while [ ! -e /marks/go ]; do sleep 0.1; done; /bin/echo -n UNMANAGED > /dev/termination-log; touch /marks/done; exit 4")}},
	}
	if _, err := first.Run(ctx, spec); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(marks, "done")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the container did not write its message")
		}
	}
	pod, err := h.rt.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseFailed {
		t.Fatalf("phase %s (%v)", st.Phase, err)
	}
	if term := st.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 4 || term.Message != "UNMANAGED" {
		t.Errorf("terminated %+v, want exit 4 with message UNMANAGED", term)
	}
}

// seqLines is seq's output from a to b.
func seqLines(a, b int) string {
	var s strings.Builder
	for i := a; i <= b; i++ {
		s.WriteString(strconv.Itoa(i) + "\n")
	}
	return s.String()
}

// clip shortens a long message for an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:20] + "..." + s[len(s)-20:]
	}
	return s
}
