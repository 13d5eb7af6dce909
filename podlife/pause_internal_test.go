package podlife

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/hostlookup"
)

// A pod with ShareProcessNamespace: its pause is created and started, and its PID namespace
// pinned, before any container is created; at the stop, the pause's task is deleted after
// every container's, and its container with it. A pod without it has no pause.
func TestFakePauseOrder(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	r.cfg.PauseBinary = os.Args[0] // any file: the fake runs nothing
	p, err := r.Run(ctx, PodSpec{Name: "shared", ShareProcessNamespace: true, Containers: []ContainerSpec{
		{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	calls := f.history()
	before(t, calls, "create POD", "task POD")
	before(t, calls, "task POD", "start POD")
	before(t, calls, "start POD", "pin pid 4242")
	for _, n := range []string{"a", "b"} {
		before(t, calls, "pin pid 4242", "create "+n)
	}
	if got, want := p.w.ShimGroup(), p.w.PauseID(); got != want {
		t.Errorf("shim group %q, want the pause's ID %q", got, want)
	}
	if got := p.Sandbox().PIDNSPath(); !strings.HasSuffix(got, "/ns/pid") {
		t.Errorf("PIDNSPath %q", got)
	}
	for _, c := range p.Status().ContainerStatuses {
		if c.Name == pauseNameInPod {
			t.Errorf("the pause is shown as a container: %+v", c)
		}
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	calls = f.history()
	for _, n := range []string{"a", "b"} {
		before(t, calls, "exited "+n+" 143", "delete-task POD")
		before(t, calls, "delete-task "+n, "delete-task POD")
	}
	before(t, calls, "delete-task POD", "delete POD")
	if slices.Contains(calls, "kill POD TERM") {
		t.Errorf("the pause got the stop signal with the containers; calls: %q", calls)
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if n := countCalls(f.history(), "delete POD"); n != 1 {
		t.Errorf("pause container deleted %d times; calls: %q", n, f.history())
	}

	q, err := r.Run(ctx, PodSpec{Name: "alone", Containers: []ContainerSpec{{Name: "c", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if q.w.PauseID() != "" || q.Sandbox().PIDNSPath() != "" {
		t.Errorf("a pod without ShareProcessNamespace has a pause")
	}
	if n := countCalls(f.history(), "create POD"); n != 1 {
		t.Errorf("%d pause creates for one pod with ShareProcessNamespace; calls: %q", n, f.history())
	}
}

// Without a pause binary the pod fails to start at the sandbox step, with errNoPauseBinary,
// and nothing of it is left.
func TestFakePauseMissing(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	r.cfg.PauseBinary = "/nonexistent/catatonit"
	_, err := r.Run(ctx, PodSpec{Name: "nopause", ShareProcessNamespace: true, Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	var se *StartError
	if !errors.As(err, &se) || se.Step != StepSandbox || !errors.Is(err, hostlookup.ErrNoPauseBinary) {
		t.Fatalf("Run: %v; want a StartError at step sandbox wrapping errNoPauseBinary", err)
	}
	if slices.ContainsFunc(f.history(), func(c string) bool { return strings.HasPrefix(c, "create") }) {
		t.Errorf("something was created; calls: %q", f.history())
	}
	if _, err := r.Pod("nopause"); err == nil {
		t.Error("the pod is still there")
	}
}

func countCalls(calls []string, call string) int {
	n := 0
	for _, c := range calls {
		if c == call {
			n++
		}
	}
	return n
}

// The host's PID and IPC namespaces need Config.AllowHostNamespaces; the API server's rules
// on shareProcessNamespace with hostPID and IPC sysctls with hostIPC apply whatever the Config.
func TestHostNamespacesValidation(t *testing.T) {
	spec := PodSpec{Name: "p", HostPID: true, HostIPC: true, Containers: []ContainerSpec{{Name: "app", Image: "busybox"}}}
	err := (&Config{}).admitSecurity(&spec)
	for _, want := range []string{
		"spec.hostPID: Forbidden: the host's PID namespace is not allowed: set Config.AllowHostNamespaces",
		"spec.hostIPC: Forbidden: the host's IPC namespace is not allowed: set Config.AllowHostNamespaces",
	} {
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), want) {
			t.Errorf("admit: %v, want %q", err, want)
		}
	}
	if err := (&Config{AllowHostNamespaces: true}).admitSecurity(&spec); err != nil {
		t.Errorf("allowed: %v", err)
	}
	if err := (&Config{AllowPrivileged: true}).admitSecurity(&spec); err == nil {
		t.Error("AllowPrivileged let hostPID and hostIPC through")
	}
	if err := spec.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}

	spec.ShareProcessNamespace = true
	spec.SecurityContext = &PodSecurityContext{Sysctls: []Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}, {Name: "net.ipv4.tcp_syncookies", Value: "1"}}}
	err = spec.Validate()
	for _, want := range []string{
		"spec.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled",
		`spec.securityContext.sysctls[0].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when 'hostIPC' is true`,
	} {
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sysctls[1]") {
		t.Errorf("Validate: %v: a net sysctl refused with hostIPC", err)
	}
	if err := (Config{PauseBinary: "catatonit"}).Validate(); err == nil || !strings.Contains(err.Error(), "config.pauseBinary") {
		t.Errorf("Config.Validate of a relative pause binary: %v", err)
	}
}
