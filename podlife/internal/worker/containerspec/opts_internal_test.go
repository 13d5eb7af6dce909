package containerspec

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
)

func input(ps *api.PodSpec, c *api.ContainerSpec) Input {
	return Input{
		Pod: ps, Container: c, Entrypoint: []string{"/entry"},
		Sandbox: Sandbox{Hostname: "h", EtcDir: "/pod/etc", PIDNS: "/pod/ns/pid",
			NSPaths: map[sandboxns.Kind]string{sandboxns.Net: "/pod/ns/net", sandboxns.UTS: "/pod/ns/uts", sandboxns.IPC: "/pod/ns/ipc"}},
		Volumes:     []specs.Mount{{Type: "bind", Source: "/pod/volumes/v", Destination: "/v"}},
		Annotations: map[string]string{"io.containerd.runc.v2.group": "g"},
		FieldValue: func(f api.PodField) (string, error) {
			return FieldValue(Pod{UID: "uid-1", IP: func() netip.Addr { return netip.MustParseAddr("10.0.0.2") }}, f)
		},
	}
}

func generate(t *testing.T, opts []oci.SpecOpts) *specs.Spec {
	t.Helper()
	ctx := namespaces.WithNamespace(context.Background(), "test")
	s, err := oci.GenerateSpec(ctx, nil, &containers.Container{ID: "c"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func nsPath(s *specs.Spec, typ specs.LinuxNamespaceType) (string, bool) {
	for _, n := range s.Linux.Namespaces {
		if n.Type == typ {
			return n.Path, true
		}
	}
	return "", false
}

// A container's spec: its args after the image's entrypoint, its env with pod fields
// resolved, the pod's namespaces and /etc files, its volumes, the shim group's annotation.
func TestOpts(t *testing.T) {
	ps := &api.PodSpec{ShareProcessNamespace: true}
	c := &api.ContainerSpec{Name: "c", Args: []string{"a"}, WorkingDir: "/w",
		Env: []api.EnvVar{{Name: "X", Value: "1"}, {Name: "UID", From: api.FieldPodUID}, {Name: "IP", From: api.FieldPodIP}}}
	in := input(ps, c)
	in.EphemeralPID = func() ([]oci.SpecOpts, error) {
		t.Error("ephemeral PID asked for with a shared PID namespace")
		return nil, nil
	}
	opts, err := Opts(in)
	if err != nil {
		t.Fatal(err)
	}
	s := generate(t, opts)
	if want := []string{"/entry", "a"}; !slices.Equal(s.Process.Args, want) {
		t.Errorf("args %q, want %q", s.Process.Args, want)
	}
	for _, e := range []string{"X=1", "UID=uid-1", "IP=10.0.0.2"} {
		if !slices.Contains(s.Process.Env, e) {
			t.Errorf("env %q lacks %s", s.Process.Env, e)
		}
	}
	if s.Process.Cwd != "/w" || s.Hostname != "h" {
		t.Errorf("cwd %q, hostname %q; want /w, h", s.Process.Cwd, s.Hostname)
	}
	for typ, want := range map[specs.LinuxNamespaceType]string{specs.NetworkNamespace: "/pod/ns/net",
		specs.UTSNamespace: "/pod/ns/uts", specs.IPCNamespace: "/pod/ns/ipc", specs.PIDNamespace: "/pod/ns/pid"} {
		if got, _ := nsPath(s, typ); got != want {
			t.Errorf("%s namespace %q, want %q", typ, got, want)
		}
	}
	mounts := map[string]string{}
	for _, m := range s.Mounts {
		mounts[m.Destination] = m.Source
	}
	for dst, src := range map[string]string{"/etc/hosts": "/pod/etc/hosts", "/etc/hostname": "/pod/etc/hostname",
		"/etc/resolv.conf": "/pod/etc/resolv.conf", "/v": "/pod/volumes/v"} {
		if mounts[dst] != src {
			t.Errorf("mount at %s from %q, want %q", dst, mounts[dst], src)
		}
	}
	if s.Annotations["io.containerd.runc.v2.group"] != "g" {
		t.Errorf("annotations %v, want the shim group's", s.Annotations)
	}
}

// The host's namespaces with HostNetwork, HostIPC and HostPID; an ephemeral container's PID
// namespace is asked for only when the pod shares none; a pod field that cannot be resolved
// fails the build before it.
func TestOptsNamespaces(t *testing.T) {
	s := generate(t, must(t)(Opts(input(&api.PodSpec{HostNetwork: true, HostIPC: true, HostPID: true}, &api.ContainerSpec{Command: []string{"/c"}}))))
	for _, typ := range []specs.LinuxNamespaceType{specs.NetworkNamespace, specs.UTSNamespace, specs.IPCNamespace, specs.PIDNamespace} {
		if _, ok := nsPath(s, typ); ok {
			t.Errorf("a %s namespace of its own, want the host's", typ)
		}
	}
	if !slices.Equal(s.Process.Args, []string{"/c"}) {
		t.Errorf("args %q, want the command", s.Process.Args)
	}

	in := input(&api.PodSpec{}, &api.ContainerSpec{})
	asked := false
	in.EphemeralPID = func() ([]oci.SpecOpts, error) {
		asked = true
		return []oci.SpecOpts{oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: "/target/pid"})}, nil
	}
	s = generate(t, must(t)(Opts(in)))
	if got, _ := nsPath(s, specs.PIDNamespace); !asked || got != "/target/pid" {
		t.Errorf("ephemeral PID namespace %q (asked: %v), want the target's", got, asked)
	}

	in = input(&api.PodSpec{}, &api.ContainerSpec{Env: []api.EnvVar{{Name: "H", From: api.FieldHostIP}}})
	boom := errors.New("no host IPs")
	in.FieldValue = func(f api.PodField) (string, error) {
		return FieldValue(Pod{HostIPs: func() ([]netip.Addr, error) { return nil, boom }}, f)
	}
	in.EphemeralPID = func() ([]oci.SpecOpts, error) { t.Error("ephemeral PID asked for after a failed env"); return nil, nil }
	if _, err := Opts(in); !errors.Is(err, boom) || err.Error() != "env H: no host IPs" {
		t.Errorf("got %v, want env H's error", err)
	}
}

func must(t *testing.T) func([]oci.SpecOpts, error) []oci.SpecOpts {
	return func(opts []oci.SpecOpts, err error) []oci.SpecOpts {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return opts
	}
}

// The downward API's pod fields, as the kubelet resolves them at the create.
func TestFieldValue(t *testing.T) {
	hosts := func() ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}, nil
	}
	ip := func() netip.Addr { return netip.MustParseAddr("10.0.0.2") }
	none := func() netip.Addr { return netip.Addr{} }
	for _, tc := range []struct {
		pod  Pod
		f    api.PodField
		want string
	}{
		{Pod{UID: "u"}, api.FieldPodUID, "u"},
		{Pod{HostIPs: hosts}, api.FieldHostIP, "192.0.2.1"},
		{Pod{HostIPs: hosts}, api.FieldHostIPs, "192.0.2.1,2001:db8::1"},
		{Pod{HostIPs: hosts, IP: ip}, api.FieldPodIP, "10.0.0.2"},
		{Pod{HostIPs: hosts, IP: ip}, api.FieldPodIPs, "10.0.0.2"},
		{Pod{HostIPs: hosts, IP: none}, api.FieldPodIP, ""},
		{Pod{HostIPs: hosts, IP: ip, HostNetwork: true}, api.FieldPodIP, "192.0.2.1"},
		{Pod{HostIPs: hosts, IP: ip, HostNetwork: true}, api.FieldPodIPs, "192.0.2.1,2001:db8::1"},
	} {
		if got, err := FieldValue(tc.pod, tc.f); err != nil || got != tc.want {
			t.Errorf("%s (hostNetwork %v): %q, %v; want %q", tc.f, tc.pod.HostNetwork, got, err, tc.want)
		}
	}
	if _, err := FieldValue(Pod{}, "spec.nodeName"); err == nil {
		t.Error("an unknown field resolved, want an error")
	}
	ps := &api.PodSpec{}
	if !NeedsPodIP(ps, &api.ContainerSpec{Env: []api.EnvVar{{Name: "IP", From: api.FieldPodIPs}}}) ||
		NeedsPodIP(&api.PodSpec{HostNetwork: true}, &api.ContainerSpec{Env: []api.EnvVar{{Name: "IP", From: api.FieldPodIP}}}) ||
		NeedsPodIP(ps, &api.ContainerSpec{Env: []api.EnvVar{{Name: "U", From: api.FieldPodUID}}}) {
		t.Error("NeedsPodIP: want true only for a pod IP without HostNetwork")
	}
}

// The grace period is the defaulted spec's; host ports are published with lower-case protocols.
func TestDerived(t *testing.T) {
	g := 7 * time.Second
	ps := &api.PodSpec{TerminationGracePeriod: &g,
		Containers: []api.ContainerSpec{{Name: "a", Ports: []api.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, HostPort: 5353, Protocol: "UDP", HostIP: "127.0.0.1"}}}}}
	if GracePeriod(ps) != g {
		t.Errorf("grace %v, want %v", GracePeriod(ps), g)
	}
	pms := PortMappings(ps)
	if len(pms) != 1 || pms[0].HostPort != 5353 || pms[0].ContainerPort != 53 || pms[0].Protocol != "udp" || pms[0].HostIP != "127.0.0.1" {
		t.Errorf("port mappings %+v, want the one host port", pms)
	}
	err := &ConfigError{Err: errors.New("x")}
	if !errors.Is(err, api.ErrCreateContainerConfig) || err.Error() != "x" {
		t.Errorf("ConfigError: %v, want its text and ErrCreateContainerConfig", err)
	}
}
