package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/errdefs"
	"golang.org/x/sys/unix"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// execIn runs script with /bin/sh -c in the pod's container and returns its output; a non-zero
// exit fails the test.
func execIn(t *testing.T, ctx context.Context, pod *podlife.Pod, container, script string) string {
	t.Helper()
	_, err := pod.Container(container)
	if err != nil {
		t.Fatal(err)
	}
	res, err := execOutput(ctx, pod, container, []string{"/bin/sh", "-c", script})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec %q in %s: code %d, err %v, output %q", script, container, res.ExitCode, err, res.Output)
	}
	return string(res.Output)
}

// execCode runs script in the pod's container and returns its exit code.
func execCode(t *testing.T, ctx context.Context, pod *podlife.Pod, container, script string) int {
	t.Helper()
	_, err := pod.Container(container)
	if err != nil {
		t.Fatal(err)
	}
	res, err := execOutput(ctx, pod, container, []string{"/bin/sh", "-c", script})
	if err != nil {
		t.Fatalf("exec %q in %s: %v", script, container, err)
	}
	return res.ExitCode
}

// waitFile waits (up to 30 s) for a file the pod writes and returns its content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within 30 s: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pauseCmdline is /proc/<pause>/cmdline, NULs as spaces.
const pauseCmdline = "/catatonit -P "

// shareProcessNamespace, seen from inside the containers (an init container's included): PID 1
// is the pause; ps in one
// container lists the other's processes; a signal sent from one reaches a process of the other
// (which traps it and writes a file); /proc/<pid>/root reaches the other's filesystem. The pod
// stops within its grace period, and nothing is left after Remove (the harness's leak checks).
func TestShareProcessNamespace(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	shared := []podlife.VolumeMount{{Name: "shared", MountPath: "/shared"}}
	const target = `trap 'echo usr1 > /shared/usr1' USR1; echo only-in-target > /tmp/only-in-target; ` +
		`echo $$ > /shared/pid.tmp; mv /shared/pid.tmp /shared/target.pid; while :; do sleep 0.1; done`
	grace := 20 * time.Second
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "sharedpid", ShareProcessNamespace: true, TerminationGracePeriod: &grace,
		Volumes: []podlife.Volume{{Name: "shared", EmptyDir: &podlife.EmptyDirVolume{}}},
		InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, VolumeMounts: shared,
			Command: []string{"/bin/sh", "-c", `tr '\0' ' ' < /proc/1/cmdline > /shared/init-pid1`}}},
		Containers: []podlife.ContainerSpec{
			{Name: "target", Image: testImage, VolumeMounts: shared, Command: []string{"/bin/sh", "-c", target}},
			{Name: "peer", Image: testImage, VolumeMounts: shared, Command: []string{"sleep", "3600"}},
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	vol := filepath.Join(pod.Sandbox().Dir(), "volumes", "shared")
	pid := strings.TrimSpace(waitFile(t, filepath.Join(vol, "target.pid")))
	if _, err := strconv.Atoi(pid); err != nil {
		t.Fatalf("target's pid %q", pid)
	}
	if got, err := os.ReadFile(filepath.Join(vol, "init-pid1")); err != nil || string(got) != pauseCmdline {
		t.Errorf("init container: /proc/1/cmdline %q, %v, want the pause's %q", got, err, pauseCmdline)
	}
	for _, c := range []string{"target", "peer"} {
		if got := execIn(t, ctx, pod, c, `tr '\0' ' ' < /proc/1/cmdline`); got != pauseCmdline {
			t.Errorf("%s: /proc/1/cmdline %q, want the pause's %q", c, got, pauseCmdline)
		}
	}
	ps := execIn(t, ctx, pod, "peer", "ps -o pid,args")
	for _, want := range []string{"/catatonit -P", "sleep 3600", "while :; do sleep 0.1; done"} {
		if !strings.Contains(ps, want) {
			t.Errorf("ps in peer does not list %q:\n%s", want, ps)
		}
	}
	if !strings.Contains(ps, "\n"+fmt.Sprintf("%5s", pid)+" ") && !strings.Contains(ps, "\n"+pid+" ") {
		t.Errorf("ps in peer does not list the target's PID %s:\n%s", pid, ps)
	}
	if got := execIn(t, ctx, pod, "target", "ps -o args"); !strings.Contains(got, "sleep 3600") {
		t.Errorf("ps in target does not list peer's sleep:\n%s", got)
	}

	// A signal from the peer reaches the target's shell, which traps it.
	execIn(t, ctx, pod, "peer", "kill -USR1 "+pid)
	if got := waitFile(t, filepath.Join(vol, "usr1")); got != "usr1\n" {
		t.Errorf("usr1 file %q", got)
	}
	// The target's root filesystem, through /proc/<pid>/root; not the peer's own.
	if got := execIn(t, ctx, pod, "peer", "cat /proc/"+pid+"/root/tmp/only-in-target"); got != "only-in-target\n" {
		t.Errorf("peer reads %q through /proc/%s/root, want the target's file", got, pid)
	}
	if code := execCode(t, ctx, pod, "peer", "test -e /tmp/only-in-target"); code == 0 {
		t.Error("the target's /tmp file is in the peer's own filesystem")
	}

	// Stopped within the grace period: neither process is PID 1 of its namespace, so SIGTERM
	// ends both (no SIGKILL at the end of the grace period).
	t0 := time.Now()
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if took := time.Since(t0); took >= grace {
		t.Errorf("Stop took %v, the whole grace period %v", took, grace)
	}
	for _, cs := range pod.Status().ContainerStatuses {
		if tt := cs.State.Terminated; tt == nil || tt.ExitCode != 143 {
			t.Errorf("%s: state %+v, want terminated by SIGTERM (143)", cs.Name, cs.State)
		}
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// A pause killed from inside the pod (kill -TERM 1 from a container: catatonit exits on it, as
// the kubelet's pause does) takes the pod's PID namespace with it: the pod is stopped and fails
// with reason SandboxChanged (a Warning event says why), rather than restarting containers into
// a namespace that is gone.
func TestSharedPIDPauseKilled(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "pausekilled", ShareProcessNamespace: true,
		Containers: []podlife.ContainerSpec{{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	_, err = pod.Container("a")
	if err != nil {
		t.Fatal(err)
	}
	// The exec's own process dies with the namespace: its result does not matter.
	_, _ = execOutput(ctx, pod, "a", []string{"/bin/sh", "-c", "kill -TERM 1; sleep 10"})
	st, err := pod.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v (status %+v)", err, pod.Status())
	}
	if st.Phase != podlife.PhaseFailed || st.Reason != reasons.SandboxChanged {
		t.Errorf("phase %s reason %q, want Failed SandboxChanged", st.Phase, st.Reason)
	}
	waitEvent(t, ctx, pod, "", reasons.SandboxChanged)
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// A pod without shareProcessNamespace has no pause: each container is PID 1 of its own
// namespace and does not see the other's processes.
func TestNoSharedProcessNamespaceByDefault(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "ownpid", Containers: []podlife.ContainerSpec{
		{Name: "a", Image: testImage, Command: []string{"sleep", "3601"}},
		{Name: "b", Image: testImage, Command: []string{"sleep", "3602"}},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := execIn(t, ctx, pod, "a", `tr '\0' ' ' < /proc/1/cmdline`); got != "sleep 3601 " {
		t.Errorf("a: /proc/1/cmdline %q, want its own process", got)
	}
	if ps := execIn(t, ctx, pod, "a", "ps -o args"); strings.Contains(ps, "3602") || strings.Contains(ps, "catatonit") {
		t.Errorf("a sees another container's processes:\n%s", ps)
	}
	if p := pod.Sandbox().PIDNSPath(); p != "" {
		t.Errorf("PIDNSPath %q, want none", p)
	}
	nctx := namespaces.WithNamespace(ctx, h.ns)
	ctrs, err := env.client.Containers(nctx, fmt.Sprintf("labels.%q==%s", podlife.LabelPodUID, pod.UID()))
	if err != nil || len(ctrs) != 2 {
		t.Errorf("containerd containers of the pod: %d, %v, want its 2 containers and no pause", len(ctrs), err)
	}
	// sleep is PID 1 here and ignores SIGTERM: no need to wait out the grace period.
	if err := pod.Stop(ctx, podlife.WithGracePeriod(0)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// hostPID and hostIPC, allowed by Config.AllowHostNamespaces: the container sees a process the
// test started on the host (by its PID), a System V shared memory segment and a /dev/shm file
// created on the host. A pod without them sees none of it. (The first pod also has hostNetwork:
// no namespace of its own at all.)
func TestHostPIDAndIPC(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) { c.AllowHostNamespaces = true })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	host := exec.Command("sleep", "3603")
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	pid := strconv.Itoa(host.Process.Pid)
	key := int(time.Now().UnixNano()&0x3fffffff) | 1
	shm, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Fatalf("shmget: %v", err)
	}
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(shm, unix.IPC_RMID, nil) })
	shmFile := fmt.Sprintf("podlife-test-%s-%d", env.runID, key)
	if err := os.WriteFile(filepath.Join("/dev/shm", shmFile), []byte("from-host"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(filepath.Join("/dev/shm", shmFile)) })

	run := func(name string, hostNS bool) *podlife.Pod {
		// With hostNetwork too, the pod has no namespace of its own to pin.
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name, HostPID: hostNS, HostIPC: hostNS, HostNetwork: hostNS,
			Containers: []podlife.ContainerSpec{{Name: "c", Image: testImage, Command: []string{"sleep", "3600"}}}})
		if err != nil {
			t.Fatalf("Run %s: %v", name, err)
		}
		return pod
	}
	hostns, own := run("hostns", true), run("ownns", false)
	if got := execIn(t, ctx, hostns, "c", `tr '\0' ' ' < /proc/`+pid+`/cmdline`); got != "sleep 3603 " {
		t.Errorf("hostPID: /proc/%s/cmdline %q, want the host's sleep 3603", pid, got)
	}
	hasKey := func(sysvipc string) bool {
		for _, line := range strings.Split(sysvipc, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == strconv.Itoa(key) {
				return true
			}
		}
		return false
	}
	if got := execIn(t, ctx, hostns, "c", "cat /proc/sysvipc/shm"); !hasKey(got) {
		t.Errorf("hostIPC: the host's shm segment (key %d) is not listed:\n%s", key, got)
	}
	if got := execIn(t, ctx, hostns, "c", "cat /dev/shm/"+shmFile); got != "from-host" {
		t.Errorf("hostIPC: /dev/shm/%s is %q, want the host's file", shmFile, got)
	}

	if code := execCode(t, ctx, own, "c", "grep -q 'sleep.*3603' /proc/"+pid+"/cmdline"); code == 0 {
		t.Errorf("a pod without hostPID sees the host's process %s", pid)
	}
	if got := execIn(t, ctx, own, "c", "cat /proc/sysvipc/shm"); hasKey(got) {
		t.Errorf("a pod without hostIPC sees the host's shm segment:\n%s", got)
	}
	if code := execCode(t, ctx, own, "c", "test -e /dev/shm/"+shmFile); code == 0 {
		t.Error("a pod without hostIPC sees the host's /dev/shm")
	}
	for _, p := range []*podlife.Pod{hostns, own} {
		// own's sleep is PID 1 and ignores SIGTERM: no need to wait out the grace period.
		if err := p.Stop(ctx, podlife.WithGracePeriod(0)); err != nil {
			t.Fatalf("Stop %s: %v", p.Name(), err)
		}
		if err := p.Remove(ctx); err != nil {
			t.Fatalf("Remove %s: %v", p.Name(), err)
		}
	}
	if _, err := os.Stat(filepath.Join("/dev/shm", shmFile)); err != nil {
		t.Errorf("the host's /dev/shm file after Remove: %v", err)
	}
}

// hostPID and hostIPC are refused without Config.AllowHostNamespaces, the error naming the field.
func TestHostNamespacesRefusedWithoutGate(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		field string
		spec  podlife.PodSpec
	}{
		{"spec.hostPID", podlife.PodSpec{HostPID: true}},
		{"spec.hostIPC", podlife.PodSpec{HostIPC: true}},
	} {
		spec := tc.spec
		spec.Name = "refused"
		spec.Containers = []podlife.ContainerSpec{{Name: "c", Image: testImage}}
		_, err := h.rt.Run(ctx, spec)
		var ve *podlife.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "AllowHostNamespaces") {
			t.Errorf("%s: Run: %v; want a ValidationError naming the field and Config.AllowHostNamespaces", tc.field, err)
		}
	}
	if len(h.rt.Pods()) != 0 {
		t.Errorf("pods %v after refused runs", h.rt.Pods())
	}
}

// A pod with shareProcessNamespace whose manager is gone keeps its pause and its shared PID
// namespace; another Runtime stops it (the containers, then the pause) and removes everything.
func TestUnmanagedSharedPIDPod(t *testing.T) {
	h := newHarness(t)
	gone := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "orphanpid"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: Pod.Remove: %v", err)
		}
	})
	pod, err := gone.Run(ctx, podlife.PodSpec{Name: name, ShareProcessNamespace: true,
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"sleep", "3604"}},
			{Name: "b", Image: testImage, Command: []string{"sleep", "3605"}},
		}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	uid := pod.UID()
	if err := gone.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var o bytes.Buffer
	if code, err := execPod(ctx, h.rt, name, "a", []string{"/bin/sh", "-c", `tr '\0' ' ' < /proc/1/cmdline; ps -o args | grep -c 'sleep 360[45]$'`}, podlife.ExecIO{Stdout: &o}); err != nil || code != 0 {
		t.Fatalf("Exec: code %d, err %v, output %q", code, err, o.String())
	}
	if got, want := o.String(), pauseCmdline+"2\n"; got != want {
		t.Errorf("from a, unmanaged: %q, want the pause as PID 1 and both sleeps (%q)", got, want)
	}
	nctx := namespaces.WithNamespace(ctx, h.ns)
	ctrs, err := env.client.Containers(nctx, fmt.Sprintf("labels.%q==%s", podlife.LabelPodUID, uid))
	if err != nil || len(ctrs) != 3 {
		t.Fatalf("containerd containers of the pod: %d, %v, want 2 and the pause", len(ctrs), err)
	}
	t0 := time.Now()
	if err := stopPod(ctx, h.rt, name, podlife.WithGracePeriod(20*time.Second)); err != nil {
		t.Fatalf("Pod.Stop: %v", err)
	}
	if took := time.Since(t0); took >= 20*time.Second {
		t.Errorf("Pod.Stop took %v: the grace period", took)
	}
	for _, ctr := range ctrs {
		if _, err := ctr.Task(nctx, nil); !errdefs.IsNotFound(err) {
			t.Errorf("task of %s after Pod.Stop: %v, want none", ctr.ID(), err)
		}
	}
	if err := removePod(ctx, h.rt, name); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
	if ctrs, err := env.client.Containers(nctx, fmt.Sprintf("labels.%q==%s", podlife.LabelPodUID, uid)); err != nil || len(ctrs) != 0 {
		t.Errorf("containers of the pod after Pod.Remove: %d, %v, want none", len(ctrs), err)
	}
}

// containerd restarts under a pod with shareProcessNamespace: the pause and the containers keep
// running (no exit recorded, the pause still PID 1), and the pause is followed again once
// containerd is back: killed from inside afterwards, it fails the pod (SandboxChanged).
func TestSharedPIDContainerdRestart(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "sharedrestart", ShareProcessNamespace: true, TerminationGracePeriod: ptr(10 * time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
			{Name: "b", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
		}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	evs := collect(ctx, pod)
	own.kill()
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	own.start()
	waitEvent(t, ctx, pod, "", reasons.ContainerdRecovered)
	if got := execIn(t, ctx, pod, "b", `tr '\0' ' ' < /proc/1/cmdline`); got != pauseCmdline {
		t.Errorf("after the restart: /proc/1/cmdline %q, want the pause's %q", got, pauseCmdline)
	}
	if e := append(evs.with(reasons.Exited), evs.with(reasons.SandboxChanged)...); len(e) > 0 {
		t.Errorf("events across the restart: %v, want no exit", e)
	}
	if st := pod.Status(); st.Phase != podlife.PhaseRunning {
		t.Errorf("phase %s after the restart, want Running", st.Phase)
	}
	_, err = pod.Container("a")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = execOutput(ctx, pod, "a", []string{"/bin/sh", "-c", "kill -TERM 1; sleep 10"})
	st, err := pod.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v (status %+v)", err, pod.Status())
	}
	if st.Phase != podlife.PhaseFailed || st.Reason != reasons.SandboxChanged {
		t.Errorf("after the pause was killed: phase %s reason %q, want Failed SandboxChanged", st.Phase, st.Reason)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// With one shim per container the pause has a shim of its own; the containers still join its
// PID namespace, and nothing is left after the removal (the harness's shim checks).
func TestSharedPIDShimPerContainer(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) { c.Shims = podlife.ShimPerContainer })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "sharedshims", ShareProcessNamespace: true,
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
			{Name: "b", Image: testImage, Command: []string{"sleep", "3606"}},
		}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := execIn(t, ctx, pod, "a", `tr '\0' ' ' < /proc/1/cmdline; ps -o args | grep -c '^sleep 3606$'`); got != pauseCmdline+"1\n" {
		t.Errorf("from a: %q, want the pause as PID 1 and b's sleep", got)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}
