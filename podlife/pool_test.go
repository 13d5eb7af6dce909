package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

// poolSpec is a 2-container pod whose containers stamp their start (host uptime), hostname
// and /etc/hostname into /marks/<hostname>.log; the first's postStart takes 300 ms and stamps
// its end, so the second must start after it.
func poolSpec(marks string) podlife.PodSpec {
	stamp := func(what string) string {
		return `echo "$(cut -d' ' -f1 /proc/uptime) ` + what + ` $(hostname) $(cat /etc/hostname)" >> /marks/$(hostname).log`
	}
	return podlife.PodSpec{
		Name: "tmpl", TerminationGracePeriod: ptr(time.Duration(0)),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{
			{Name: "first", Image: testImage, Command: []string{"/bin/sh", "-c", stamp("first") + "; " + loopForever},
				VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
				PostStart:    hook.Exec("/bin/sh", "-c", "sleep 0.3; "+stamp("poststart"))},
			{Name: "second", Image: testImage, Command: []string{"/bin/sh", "-c", stamp("second") + "; " + loopForever},
				VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}}},
		},
	}
}

func fromPool(p *podlife.Pod) bool {
	for _, e := range p.Events() {
		if e.Reason == reasons.StartedFromPool {
			return true
		}
	}
	return false
}

// waitPool waits (up to a budget) until cond holds of the runtime's only pool.
func waitPool(t *testing.T, rt *podlife.Runtime, what string, cond func(podlife.PoolStat) bool) {
	t.Helper()
	deadline := time.Now().Add(budget(time.Minute))
	for {
		st := rt.PoolStats()
		if len(st) == 1 && cond(st[0]) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pool never %s: %+v", what, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Prewarm 2, Run two pods of that spec: both from the pool, their processes started in spec
// order with postStart blocking the next, their names and hostnames theirs; the pool refills; a
// spec that does not match starts cold; a member whose created process is killed is never
// handed out; a spec holding its name is refused; Close removes the members.
func TestWarmPool(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	marks := t.TempDir()
	spec := poolSpec(marks)
	spec.Labels = map[string]string{"template": "yes"}
	if err := h.rt.Prewarm(ctx, spec, 2); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	if st := h.rt.PoolStats(); len(st) != 1 || st[0].Ready != 2 || st[0].Target != 2 {
		t.Fatalf("PoolStats after Prewarm = %+v, want one pool, 2 ready", st)
	}
	members, err := h.rt.ListPoolMembers(ctx)
	if err != nil || len(members) != 2 || !members[0].Ready || !members[0].Live {
		t.Fatalf("ListPoolMembers = %+v, %v; want 2 ready, live", members, err)
	}
	if recs, err := h.rt.ListPods(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("ListPods with only pool members = %+v, %v; want none", recs, err)
	}
	uids := map[string]bool{members[0].UID: true, members[1].UID: true}

	for _, name := range []string{"warm-a", "warm-b"} {
		s := poolSpec(marks)
		s.Name = name
		s.Labels = map[string]string{"request": name} // labels are set at take
		pod, err := h.rt.Run(ctx, s)
		if err != nil {
			t.Fatalf("Run %s: %v", name, err)
		}
		if !fromPool(pod) {
			t.Errorf("%s: no %s event: %+v", name, reasons.StartedFromPool, pod.Events())
		}
		if !uids[pod.UID()] {
			t.Errorf("%s: UID %s is no member's (%v)", name, pod.UID(), uids)
		}
		if st := pod.Status(); st.Phase != podlife.PhaseRunning {
			t.Errorf("%s: phase %s, want Running", name, st.Phase)
		}
		lines := waitStamped(t, filepath.Join(marks, name+".log"), "first", "poststart", "second")
		var order []string
		for _, l := range lines {
			order = append(order, l.who)
			if f := strings.Fields(l.what); len(f) != 2 || f[0] != name || f[1] != name {
				t.Errorf("%s: %s saw hostname, /etc/hostname %q; want %s", name, l.who, l.what, name)
			}
		}
		if got := strings.Join(order, ","); got != "first,poststart,second" {
			t.Errorf("%s: start order %s, want first,poststart,second", name, got)
		}
		if recs, err := h.rt.ListPods(ctx); err != nil || !hasRecord(recs, name) {
			t.Errorf("%s: not in ListPods (%+v, %v)", name, recs, err)
		}
		waitLabels(t, h, pod.UID(), map[string]string{"podlife.io/pod": name, "request": name, "template": ""})
	}
	waitPool(t, h.rt, "refilled", func(s podlife.PoolStat) bool { return s.Ready == 2 })

	// A spec that differs (a container's command) starts cold, and takes no member.
	cold := poolSpec(marks)
	cold.Name = "cold"
	cold.Containers[1].Args = []string{"extra"}
	pod, err := h.rt.Run(ctx, cold)
	if err != nil {
		t.Fatalf("Run cold: %v", err)
	}
	if fromPool(pod) {
		t.Errorf("a spec that does not match was started from the pool")
	}
	if st := h.rt.PoolStats(); st[0].Ready != 2 {
		t.Errorf("a cold start took a member: %+v", st)
	}

	// A member whose created process is killed leaves the pool, and is never handed out.
	members, err = h.rt.ListPoolMembers(ctx)
	if err != nil || len(members) != 2 {
		t.Fatalf("ListPoolMembers = %+v, %v", members, err)
	}
	killed := members[0].UID // the oldest: the next take's
	nctx := namespaces.WithNamespace(ctx, h.ns)
	ctrs, err := env.client.Containers(nctx, `labels."podlife.io/pod-uid"==`+killed)
	if err != nil || len(ctrs) != 2 {
		t.Fatalf("the member's containers: %d, %v", len(ctrs), err)
	}
	task, err := ctrs[0].Task(nctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(int(task.Pid()), syscall.SIGKILL); err != nil {
		t.Fatalf("kill the created process: %v", err)
	}
	waitMemberGone(t, ctx, h.rt, killed, "whose process was killed")
	c := poolSpec(marks)
	c.Name = "warm-c"
	pod, err = h.rt.Run(ctx, c)
	if err != nil {
		t.Fatalf("Run warm-c: %v", err)
	}
	if pod.UID() == killed {
		t.Errorf("the member whose created process was killed was handed out")
	}
	if st := pod.Status(); st.Phase != podlife.PhaseRunning {
		t.Errorf("warm-c: phase %s, want Running", st.Phase)
	}

	// An image updated under the same name (a new digest) makes every member stale: the next
	// start is cold, and the refill makes members of the new digest, which the next takes.
	waitPool(t, h.rt, "refilled after the kill", func(s podlife.PoolStat) bool { return s.Ready == 2 })
	var buf bytes.Buffer
	if err := podlifetest.BusyboxArchive(&buf, testImage, podlifetest.WithFile("/v2", []byte("2"))); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.ImportImage(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	updated := poolSpec(marks)
	updated.Name = "warm-d"
	pod, err = h.rt.Run(ctx, updated)
	if err != nil {
		t.Fatalf("Run warm-d: %v", err)
	}
	if fromPool(pod) {
		t.Errorf("a member of the old image was handed out after the image's update")
	}
	newDigest := pod.Status().ContainerStatuses[0].ImageID
	deadline := time.Now().Add(budget(time.Minute))
	for {
		ms, _ := h.rt.ListPoolMembers(ctx)
		fresh := 0
		for _, m := range ms {
			if m.Ready && m.Images["first"] == newDigest {
				fresh++
			}
		}
		if fresh == 2 && len(ms) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool was not refilled with the new image %s: %+v", newDigest, ms)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e := poolSpec(marks)
	e.Name = "warm-e"
	if pod, err = h.rt.Run(ctx, e); err != nil || !fromPool(pod) {
		t.Errorf("Run warm-e after the refill with the new image: %v, from the pool %v", err, err == nil && fromPool(pod))
	}

	// A spec whose processes would hold the pod's name cannot be pooled: the field is named.
	named := poolSpec(marks)
	named.Containers[0].Env = []podlife.EnvVar{{Name: "POD_NAME", Value: named.Name}}
	if err := h.rt.Prewarm(ctx, named, 1); !errors.Is(err, podlife.ErrNotPoolable) || !strings.Contains(err.Error(), "env[POD_NAME]") {
		t.Errorf("Prewarm of a spec holding its name: %v, want ErrNotPoolable naming env[POD_NAME]", err)
	}

	for _, p := range h.rt.Pods() {
		if err := p.Remove(ctx); err != nil {
			t.Errorf("remove %s: %v", p.Name(), err)
		}
	}
	if err := h.rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after Close: %d entries left", len(entries))
	}
}

// waitMemberGone waits (up to a budget) until the member uid is no longer listed; what says
// which member it is in the failure.
func waitMemberGone(t *testing.T, ctx context.Context, rt *podlife.Runtime, uid, what string) {
	t.Helper()
	deadline := time.Now().Add(budget(time.Minute))
	for {
		ms, _ := rt.ListPoolMembers(ctx)
		gone := true
		for _, m := range ms {
			gone = gone && m.UID != uid
		}
		if gone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the member %s is still listed: %+v", what, ms)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitLabels waits (up to a budget) until every containerd container of the pod uid has the
// labels want ("" for a label it must not have).
func waitLabels(t *testing.T, h *harness, uid string, want map[string]string) {
	t.Helper()
	ctx := namespaces.WithNamespace(context.Background(), h.ns)
	deadline := time.Now().Add(budget(30 * time.Second))
	for {
		ctrs, err := env.client.Containers(ctx, `labels."podlife.io/pod-uid"==`+uid)
		bad := ""
		for _, c := range ctrs {
			l, _ := c.Labels(ctx)
			for k, v := range want {
				if l[k] != v {
					bad = fmt.Sprintf("container %s: label %s = %q, want %q", c.ID(), k, l[k], v)
				}
			}
		}
		if err == nil && len(ctrs) > 0 && bad == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("labels of the pod %s: %v %s", uid, err, bad)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func hasRecord(recs []podlife.PodRecord, name string) bool {
	for _, r := range recs {
		if r.Name == name {
			return true
		}
	}
	return false
}

// A process that keeps a warm pool is SIGKILLed: the next Runtime's startup garbage collection
// removes its members (sandboxes, networks, containers, shims), and the harness's leak checks
// find nothing.
func TestWarmPoolCrash(t *testing.T) {
	marks := t.TempDir()
	h := newHarness(t)
	cmd := startManager(t, h, "pool", marks)
	members, err := h.rt.ListPoolMembers(context.Background())
	if err != nil || len(members) != 2 || !members[0].Live {
		t.Fatalf("the child's members: %+v, %v; want 2, live", members, err)
	}
	kill(t, cmd)
	if members, _ := h.rt.ListPoolMembers(context.Background()); len(members) != 2 || members[0].Live {
		t.Fatalf("after the kill: %+v; want 2, not live", members)
	}
	rt := h.another(t) // New collects
	if members, err := rt.ListPoolMembers(context.Background()); err != nil || len(members) != 0 {
		t.Fatalf("after the startup collection: %+v, %v; want none", members, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after the collection: %d entries left", len(entries))
	}
	ctx := namespaces.WithNamespace(context.Background(), h.ns)
	if ctrs, err := env.client.Containers(ctx); err != nil || len(ctrs) != 0 {
		t.Errorf("containers left: %d, %v", len(ctrs), err)
	}
}

// A pod with an init container and a shared process namespace (a pause) starts from the pool:
// the init container runs to completion first, then the app, both with the pod's hostname,
// and the app sees the pause as PID 1; with the exec gate (Config.ExecGate) too.
func TestWarmPoolInitAndPause(t *testing.T) {
	t.Run("created", func(t *testing.T) { testWarmPoolInitAndPause(t) })
	t.Run("exec gate", func(t *testing.T) {
		gate := execGateBinary(t)
		testWarmPoolInitAndPause(t, func(c *podlife.Config) { c.ExecGate = gate })
	})
}

func testWarmPoolInitAndPause(t *testing.T, opts ...harnessOption) {
	h := newHarness(t, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	marks := t.TempDir()
	stamp := func(what string) string {
		return `echo "$(cut -d' ' -f1 /proc/uptime) ` + what + ` $(hostname) $(cat /proc/1/cmdline | tr '\0' ' ' | cut -c1-5)" >> /marks/$(hostname).log`
	}
	mk := func(name string) podlife.PodSpec {
		mounts := []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}}
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Duration(0)), ShareProcessNamespace: true,
			Volumes:        []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
			InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", stamp("init")}, VolumeMounts: mounts}},
			Containers:     []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", stamp("app") + "; " + loopForever}, VolumeMounts: mounts}},
		}
	}
	if err := h.rt.Prewarm(ctx, mk("tmpl"), 1); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	pod, err := h.rt.Run(ctx, mk("warm-init"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !fromPool(pod) {
		t.Errorf("not started from the pool: %+v", pod.Events())
	}
	lines := waitStamped(t, filepath.Join(marks, "warm-init.log"), "init", "app")
	if len(lines) != 2 || lines[0].who != "init" || lines[1].who != "app" {
		t.Fatalf("lines %+v, want init then app", lines)
	}
	for _, l := range lines {
		if f := strings.Fields(l.what); len(f) < 1 || f[0] != "warm-init" {
			t.Errorf("%s: hostname %q, want warm-init", l.who, l.what)
		}
	}
	if f := strings.Fields(lines[1].what); len(f) < 2 || f[1] == "/bin/" {
		t.Errorf("app: PID 1 is %q, want the pause (a shared process namespace)", lines[1].what)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Prewarm(ctx, mk("tmpl"), 0); err != nil {
		t.Fatal(err)
	}
}
