package podlife_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// Command, args, env, workingDir, hostPath and memory emptyDir volumes (mode 1777, as the
// kubelet's tmpfs), the stop signal and the CRI log file, observed from inside the container.
func TestSmokeContainerFeatures(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hostDir := t.TempDir()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "features", TerminationGracePeriod: ptr(20 * time.Second),
		Volumes: []podlife.Volume{
			{Name: "host", HostPath: &podlife.HostPathVolume{Path: hostDir, Type: podlife.HostPathDirectory}},
			{Name: "mem", EmptyDir: &podlife.EmptyDirVolume{Medium: podlife.MediumMemory, SizeLimit: 8 << 20}},
		},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, WorkingDir: "/tmp",
			Command: []string{"/bin/sh", "-c"},
			// PID 1 ignores a signal it has no handler for: the trap comes first, and the
			// pod is stopped only once the container said it is ready (after the trap).
			Args: []string{`trap 'echo got-usr1 > /host/signal; exit 0' USR1; ` +
				`echo "greeting=$GREETING pwd=$(pwd)" > /host/env; grep ' /mem ' /proc/mounts > /host/mounts; stat -c %A /mem > /host/mem-mode; ` +
				`echo to-stdout; echo to-stderr >&2; touch /tmp/ready; while :; do sleep 0.1; done`},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
			Env:            []podlife.EnvVar{{Name: "GREETING", Value: "hello world"}},
			StopSignal:     syscall.SIGUSR1,
			VolumeMounts:   []podlife.VolumeMount{{Name: "host", MountPath: "/host"}, {Name: "mem", MountPath: "/mem"}},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	c, _ := pod.Container("app")
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(hostDir, name))
		if err != nil {
			t.Errorf("the container did not write %s: %v", name, err)
		}
		return strings.TrimSpace(string(b))
	}
	if got := read("env"); got != "greeting=hello world pwd=/tmp" {
		t.Errorf("env/workingDir: %q", got)
	}
	if got := read("mounts"); !strings.HasPrefix(got, "tmpfs /mem tmpfs") || !strings.Contains(got, "size=8192k") {
		t.Errorf("memory emptyDir mount: %q, want an 8 MiB tmpfs", got)
	}
	// tmpfs's default root mode, which the kubelet keeps: sticky, as on /tmp.
	if got := read("mem-mode"); got != "drwxrwxrwt" {
		t.Errorf("memory emptyDir mode: %q, want drwxrwxrwt", got)
	}
	if got := read("signal"); got != "got-usr1" {
		t.Errorf("stop signal: %q, want the USR1 trap to run", got)
	}
	if tt := pod.Status().ContainerStatuses[0].State.Terminated; tt == nil || tt.ExitCode != 0 {
		t.Errorf("terminated %+v, want exit 0 from the USR1 trap", tt)
	}
	f, err := os.Open(podlife.LogPath(c))
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l, ok := podlife.ParseLogLine(sc.Bytes())
		if !ok {
			t.Fatalf("not a CRI log line: %q", sc.Text())
		}
		lines = append(lines, l.Stream+" "+l.Text)
	}
	slices.Sort(lines) // stdout and stderr are separate pipes: no order between them
	if strings.Join(lines, "|") != "stderr to-stderr|stdout to-stdout" {
		t.Errorf("log lines %q", lines)
	}
}

// Go-func, httpGet (status code ignored) and sleep hooks, and HookTimeout.
func TestHookKinds(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	var target hook.Target
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "hook-kinds", TerminationGracePeriod: ptr(20 * time.Second),
		Containers: []podlife.ContainerSpec{
			{
				Name: "func", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				PostStart: hook.HandlerFunc(func(ctx context.Context, t hook.Target) error { target = t; return nil }),
				PreStop:   hook.Sleep(time.Second),
			},
			{
				Name: "http", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				PostStart: hook.HTTPGet(port, "/poststart", hook.WithHost("127.0.0.1")),
			},
			{
				Name: "timeout", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				PostStart: hook.Exec("sleep", "30"), HookTimeout: 500 * time.Millisecond,
			},
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st := pod.Status()
	if target.Pod != "hook-kinds" || target.Container != "func" || target.IP != st.PodIP || target.Exec == nil {
		t.Errorf("Go hook target %+v, want the pod, container, pod IP %v and an Execer", target, st.PodIP)
	}
	if res, err := target.Exec.Exec(ctx, []string{"hostname"}); err != nil || strings.TrimSpace(string(res.Output)) != "hook-kinds" {
		t.Errorf("Exec through the hook target: %q %v", res.Output, err)
	}
	mu.Lock()
	if len(seen) != 1 || seen[0] != "/poststart" {
		t.Errorf("httpGet hook requests %v, want one to /poststart", seen)
	}
	mu.Unlock()
	if !st.ContainerStatuses[1].Ready {
		t.Errorf("http container not ready: a 500 must not fail an httpGet hook (%+v)", st.ContainerStatuses[1])
	}
	// HookTimeout fails the hook: FailedPostStartHook, then waiting PostStartHookError until the
	// restart (restartPolicy Always) replaces it, which can come within ~100 ms: accept either.
	waitEvent(t, ctx, pod, "timeout", reasons.FailedPostStartHook)
	w, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		cs := s.ContainerStatuses[2]
		return cs.State.Waiting != nil && cs.State.Waiting.Reason == reasons.PostStartHookError || cs.RestartCount >= 1
	})
	if err != nil {
		t.Errorf("timeout container: %+v (%v), want PostStartHookError after HookTimeout (or its restart)", w.ContainerStatuses[2], err)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	killing := eventTime(t, pod, "func", reasons.Killing)
	exited := eventTime(t, pod, "func", reasons.Exited)
	if d := exited.Sub(killing); d < time.Second {
		t.Errorf("func exited %v after Killing, want >= the 1 s sleep preStop", d)
	}
}

// hostNetwork: no pod IP of its own, the host's hostname; /etc/hosts is the host's with the
// pod's hostAliases after it, as the kubelet writes it (conformance: "should write entries to
// /etc/hosts when hostNetwork is enabled").
func TestHostNetwork(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "hostnet", HostNetwork: true, TerminationGracePeriod: ptr(5 * time.Second),
		HostAliases: []podlife.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar"}}},
		Containers:  []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ip := pod.Status().PodIP; ip != (netip.Addr{}) {
		t.Errorf("pod IP %v with hostNetwork, want none", ip)
	}
	res, err := execOutput(ctx, pod, "app", []string{"hostname"})
	host, _ := os.Hostname()
	if err != nil || strings.TrimSpace(string(res.Output)) != host {
		t.Errorf("hostname in a hostNetwork pod: %q (%v), want the host's %q", res.Output, err, host)
	}
	res, err = execOutput(ctx, pod, "app", []string{"cat", "/etc/hosts"})
	hostHosts, _ := os.ReadFile("/etc/hosts")
	if want := "# Kubernetes-managed hosts file (host network).\n" + string(hostHosts) + "\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n"; err != nil || string(res.Output) != want {
		t.Errorf("/etc/hosts of a hostNetwork pod: %q (%v), want %q", res.Output, err, want)
	}
}

// A files volume is readable (mode kept) and read-only; resources reach the cgroup.
func TestFilesVolumeAndResources(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "files", TerminationGracePeriod: ptr(3 * time.Second),
		Volumes: []podlife.Volume{{Name: "cfg", Files: &podlife.FilesVolume{Medium: podlife.MediumMemory, Files: []podlife.File{
			{Path: "app.conf", Data: []byte("level=debug\n")},
			{Path: "certs/key", Data: []byte("secret"), Mode: 0o400},
		}}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			VolumeMounts: []podlife.VolumeMount{{Name: "cfg", MountPath: "/etc/app"}},
			Resources:    podlife.Resources{MemoryLimit: 64 << 20, CPULimit: 500},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	c, _ := pod.Container("app")
	run := func(cmd string) string {
		res, err := execOutput(ctx, pod, "app", []string{"/bin/sh", "-c", cmd})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(res.Output))
	}
	if got := run("cat /etc/app/app.conf; stat -c %a /etc/app/certs/key"); got != "level=debug\n400" {
		t.Errorf("files: %q", got)
	}
	if got := run("touch /etc/app/x 2>&1; echo $?"); !strings.HasSuffix(got, "1") {
		t.Errorf("files volume writable: %q", got)
	}
	read := func(parts ...string) string {
		b, err := os.ReadFile(filepath.Join(append([]string{"/sys/fs/cgroup"}, parts...)...))
		if err != nil {
			t.Fatalf("cgroup file: %v", err)
		}
		return strings.TrimSpace(string(b))
	}
	cg := filepath.Join(h.ns, c.ID())
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err == nil { // cgroup v1
		if mem, quota := read("memory", cg, "memory.limit_in_bytes"), read("cpu", cg, "cpu.cfs_quota_us"); mem != "67108864" || quota != "50000" {
			t.Errorf("cgroup v1 limits: memory %s, cpu quota %s; want 64 MiB and 50 ms per 100 ms", mem, quota)
		}
	} else if mem, cpu := read(cg, "memory.max"), read(cg, "cpu.max"); mem != "67108864" || cpu != "50000 100000" {
		t.Errorf("cgroup v2 limits: memory.max %s, cpu.max %s", mem, cpu)
	}
}
