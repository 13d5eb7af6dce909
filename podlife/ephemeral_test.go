package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// ephemeralPod runs a 2-container pod: web serves a page on 127.0.0.1:8080 of the pod, target
// runs a shell loop whose command line carries a marker.
func ephemeralPod(t *testing.T, ctx context.Context, h *harness, name string) *podlife.Pod {
	t.Helper()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name, Containers: []podlife.ContainerSpec{
		{Name: "web", Image: testImage, Command: []string{"/bin/sh", "-c",
			"mkdir -p /www && echo served-by-web > /www/index.html && trap 'exit 0' TERM; httpd -f -p 8080 -h /www & wait"}},
		{Name: "target", Image: testImage, Command: []string{"/bin/sh", "-c",
			"trap 'exit 0' TERM; x=target-marker; while :; do sleep 0.1; done"}},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	return pod
}

// ephemeralStatus returns the pod's status of the named ephemeral container.
func ephemeralStatus(st podlife.PodStatus, name string) (podlife.ContainerStatus, bool) {
	for _, cs := range st.EphemeralContainerStatuses {
		if cs.Name == name {
			return cs, true
		}
	}
	return podlife.ContainerStatus{}, false
}

// waitEphemeralExit waits for the ephemeral container to terminate and returns its status.
func waitEphemeralExit(t *testing.T, ctx context.Context, pod *podlife.Pod, name string) podlife.ContainerStatus {
	t.Helper()
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		cs, ok := ephemeralStatus(s, name)
		return ok && cs.State.Terminated != nil
	})
	if err != nil {
		t.Fatalf("ephemeral container %s did not exit: %v (status %+v)", name, err, st.EphemeralContainerStatuses)
	}
	cs, _ := ephemeralStatus(st, name)
	return cs
}

// endMarker is the last line the debug commands print (a line of its own: their command lines,
// which ps lists, have it too): their log is complete once it is there.
const endMarker = "end-of-debug"

// logText returns the text of a container's current log file once it has the line endMarker
// (the output of a process that exited may still be on its way to the file), for at most 30 s.
func logText(t *testing.T, c *podlife.Container) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(podlife.LogPath(c))
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if l, ok := podlife.ParseLogLine([]byte(strings.TrimSuffix(line, "\n"))); ok {
				out.WriteString(l.Text + "\n")
			}
		}
		if strings.Contains("\n"+out.String(), "\n"+endMarker+"\n") || time.Now().After(deadline) {
			return out.String()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An ephemeral container targeting one container of a running pod sees that container's
// processes (its PID 1 is the target's shell; the other container's httpd is not there),
// reaches the pod's network on 127.0.0.1 and has the pod's hostname. It is shown in
// EphemeralContainerStatuses, terminated 0 and never restarted (the pod's policy is Always),
// without changing the pod's phase or readiness; one without a target has a PID namespace of
// its own and is stopped with the pod. Remove deletes them (the harness checks for leaks).
func TestEphemeralContainer(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod := ephemeralPod(t, ctx, h, "ephem")

	debug, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{TargetContainerName: "target",
		ContainerSpec: podlife.ContainerSpec{Name: "debugger", Image: testImage, Command: []string{"/bin/sh", "-c",
			`ps -o pid,args; echo "pid1=$(tr '\0' ' ' < /proc/1/cmdline)"; wget -q -O - http://127.0.0.1:8080/; echo "host=$(hostname)"; echo ` + endMarker}}})
	if err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	cs := waitEphemeralExit(t, ctx, pod, "debugger")
	out := logText(t, debug)
	// The pin of the target's PID namespace is gone once the debugger's task exists.
	if pins, _ := filepath.Glob(filepath.Join(pod.Sandbox().Dir(), "ns", "target-*")); len(pins) > 0 {
		t.Errorf("the target's PID namespace is still pinned: %v", pins)
	}
	if tt := cs.State.Terminated; tt.ExitCode != 0 || tt.Reason != reasons.Completed {
		t.Errorf("debugger terminated %+v, want 0 Completed; output:\n%s", tt, out)
	}
	if !strings.Contains(out, "pid1=/bin/sh -c trap 'exit 0' TERM; x=target-marker;") {
		t.Errorf("PID 1 of the debugger's namespace is not the target's shell:\n%s", out)
	}
	if strings.Contains(out, "httpd") {
		t.Errorf("the debugger sees web's httpd: it is not in the target's PID namespace alone:\n%s", out)
	}
	if !strings.Contains(out, "served-by-web\n") {
		t.Errorf("the debugger did not reach web on 127.0.0.1:8080 of the pod:\n%s", out)
	}
	if !strings.Contains(out, "host=ephem\n") {
		t.Errorf("the debugger's hostname is not the pod's:\n%s", out)
	}
	if cs.ContainerID == "" || cs.Image != testImage || cs.Ready || cs.RestartCount != 0 {
		t.Errorf("debugger status %+v", cs)
	}
	st := pod.Status()
	if st.Phase != podlife.PhaseRunning || len(st.ContainerStatuses) != 2 {
		t.Errorf("pod %s with %d container statuses, want Running with 2", st.Phase, len(st.ContainerStatuses))
	}
	if r, n := st.ReadyCount(); r != 2 || n != 2 {
		t.Errorf("ready %d/%d, want 2/2", r, n)
	}
	var started bool
	for _, e := range pod.Events() {
		if e.Container == "debugger" && e.Reason == reasons.Started {
			started = true
		}
	}
	if !started {
		t.Error("no Started event for the debugger")
	}

	// The API server's rules, at the ephemeral container's path.
	for _, tc := range []struct {
		spec podlife.EphemeralContainerSpec
		want string
	}{
		{podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{Name: "p", Image: testImage,
			Ports: []podlife.ContainerPort{{ContainerPort: 80}}}}, "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container"},
		{podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{Name: "web", Image: testImage}}, `spec.ephemeralContainers[1].name: Duplicate value: "web"`},
		{podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{Name: "debugger", Image: testImage}}, `spec.ephemeralContainers[1].name: Duplicate value: "debugger"`},
		{podlife.EphemeralContainerSpec{TargetContainerName: "nope", ContainerSpec: podlife.ContainerSpec{Name: "t", Image: testImage}},
			`spec.ephemeralContainers[1].targetContainerName: Not found: "nope"`},
	} {
		_, err := pod.AddEphemeralContainer(ctx, tc.spec)
		if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddEphemeralContainer(%s): %v, want %q", tc.spec.Name, err, tc.want)
		}
	}
	if n := len(pod.Status().EphemeralContainerStatuses); n != 1 {
		t.Errorf("%d ephemeral containers after the refused ones, want 1", n)
	}

	// Without a target: its own PID namespace; still running when the pod stops.
	own, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{
		Name: "own", Image: testImage, Command: []string{"/bin/sh", "-c",
			`trap 'exit 0' TERM; while :; do sleep 0.1; done`}}})
	if err != nil {
		t.Fatalf("AddEphemeralContainer own: %v", err)
	}
	if got := execIn(t, ctx, pod, "own", `tr '\0' ' ' < /proc/1/cmdline`); !strings.HasPrefix(got, "/bin/sh -c trap") {
		t.Errorf("PID 1 of a debug container without a target is %q, not its own shell", got)
	}
	id := own.ID()
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	st = pod.Status()
	if cs, _ := ephemeralStatus(st, "own"); cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
		t.Errorf("own after the pod's stop: %+v, want terminated 0 (SIGTERM trapped)", cs.State)
	}
	if cs, _ := ephemeralStatus(st, "debugger"); cs.RestartCount != 0 || cs.State.Terminated == nil {
		t.Errorf("debugger after the pod's stop: %+v, restarts %d: want terminated, never restarted", cs.State, cs.RestartCount)
	}
	if _, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{
		Name: "late", Image: testImage}}); !errors.Is(err, podlife.ErrPodStopping) {
		t.Errorf("AddEphemeralContainer on a stopped pod: %v, want ErrPodStopping", err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := env.client.LoadContainer(namespaces.WithNamespace(ctx, h.ns), id); !errdefs.IsNotFound(err) {
		t.Errorf("own's containerd container after Remove: %v, want NotFound", err)
	}
	if _, err := os.Stat(pod.Sandbox().Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pod dir after Remove: %v", err)
	}
}

// Pod.AddEphemeralContainer from another Runtime (as another process would) goes through the
// manager's control socket; the manager's status shows the container.
func TestEphemeralContainerThroughControl(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod := ephemeralPod(t, ctx, h, "ephemctl")
	other := h.another(t)
	remote := podOf(t, other, "ephemctl")
	c, err := remote.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{TargetContainerName: "target",
		ContainerSpec: podlife.ContainerSpec{Name: "debugger", Image: testImage, Command: []string{"/bin/sh", "-c", "ps -o args; echo " + endMarker}}})
	if err != nil {
		t.Fatalf("AddEphemeralContainer through the control socket: %v", err)
	}
	if c != nil {
		t.Errorf("AddEphemeralContainer through the control socket returned a container of this runtime: %v", c.Name())
	}
	waitEphemeralExit(t, ctx, pod, "debugger")
	c, err = pod.Container("debugger")
	if err != nil {
		t.Fatal(err)
	}
	if out := logText(t, c); !strings.Contains(out, "target-marker") {
		t.Errorf("debugger's ps does not list the target's shell:\n%s", out)
	}
	// The manager writes its status file after each change, in the background.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rec, err := other.LookupPod(ctx, "ephemctl")
		if err != nil {
			t.Fatal(err)
		}
		cs, ok := ephemeralStatus(rec.Status, "debugger")
		if ok && cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("record of the pod in the other runtime: %+v", rec.Status.EphemeralContainerStatuses)
		}
	}
	// What cannot travel is refused, not dropped.
	_, err = remote.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{
		Name: "v", Image: testImage, VolumeMounts: []podlife.VolumeMount{{Name: "x", MountPath: "/x"}}}})
	if !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("a spec with volume mounts through the control socket: %v, want ErrInvalidSpec", err)
	}
	// The manager refuses a spec the API server would.
	_, err = remote.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{
		Name: "web", Image: testImage}})
	if err == nil || !strings.Contains(err.Error(), `Duplicate value: "web"`) {
		t.Errorf("a duplicate name through the control socket: %v", err)
	}
}

// In a pod with shareProcessNamespace, an ephemeral container joins the pod's PID namespace,
// target or not: PID 1 is the pause, and it sees every container's processes.
func TestEphemeralContainerSharedPID(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "ephshared", ShareProcessNamespace: true, Containers: []podlife.ContainerSpec{
		{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; x=marker-a; while :; do sleep 0.1; done"}},
		{Name: "b", Image: testImage, Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; x=marker-b; while :; do sleep 0.1; done"}},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, target := range []string{"", "a"} {
		name := "dbg" + target
		c, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{TargetContainerName: target,
			ContainerSpec: podlife.ContainerSpec{Name: name, Image: testImage, Command: []string{"/bin/sh", "-c",
				`ps -o args; echo "pid1=$(tr '\0' ' ' < /proc/1/cmdline)"; echo ` + endMarker}}})
		if err != nil {
			t.Fatalf("AddEphemeralContainer %s: %v", name, err)
		}
		if cs := waitEphemeralExit(t, ctx, pod, name); cs.State.Terminated.ExitCode != 0 {
			t.Errorf("%s: %+v", name, cs.State.Terminated)
		}
		out := logText(t, c)
		if !strings.Contains(out, "pid1="+pauseCmdline+"\n") || !strings.Contains(out, "marker-a") || !strings.Contains(out, "marker-b") {
			t.Errorf("%s (target %q) is not in the pod's PID namespace:\n%s", name, target, out)
		}
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// A pod whose manager is gone keeps its ephemeral container, seen by other processes (its task
// still runs); no ephemeral container can be added without a manager; Pod.Remove from another
// process removes it with the rest (the harness checks that nothing is left).
func TestEphemeralContainerUnmanaged(t *testing.T) {
	h := newHarness(t)
	gone := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "ephorphan"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: Pod.Remove: %v", err)
		}
	})
	pod, err := gone.Run(ctx, podlife.PodSpec{Name: name, Containers: []podlife.ContainerSpec{
		{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{TargetContainerName: "app",
		ContainerSpec: podlife.ContainerSpec{Name: "dbg", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}); err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		cs, ok := ephemeralStatus(s, "dbg")
		return ok && cs.State.Running != nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := gone.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rec, err := h.rt.LookupPod(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if cs, ok := ephemeralStatus(rec.Status, "dbg"); rec.Managed() || !ok || cs.State.Running == nil {
		t.Errorf("unmanaged record: managed %v, dbg %+v", rec.Managed(), rec.Status.EphemeralContainerStatuses)
	}
	_, err = podOf(t, h.rt, name).AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{Name: "late", Image: testImage}})
	if !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("AddEphemeralContainer without a manager: %v, want ErrNotFound", err)
	}
	if err := removePod(ctx, h.rt, name, podlife.WithGracePeriod(0)); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
}
