package ocibuild

import (
	"context"
	"testing"

	"github.com/containerd/containerd/v2/core/containers"
	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/api"
)

// no_new_privs: podlife's default sets it when allowPrivilegeEscalation is unset; the kubelet's
// rule (escalationByDefault) only when it is false. Privileged containers never get it.
func TestNoNewPrivsRule(t *testing.T) {
	for _, tc := range []struct {
		name                string
		ctr                 *api.SecurityContext
		escalationByDefault bool
		want                bool
	}{
		{"unset, podlife", nil, false, true},
		{"unset, kubelet", nil, true, false},
		{"false, kubelet", &api.SecurityContext{AllowPrivilegeEscalation: bptr(false)}, true, true},
		{"false, podlife", &api.SecurityContext{AllowPrivilegeEscalation: bptr(false)}, false, true},
		{"true, podlife", &api.SecurityContext{AllowPrivilegeEscalation: bptr(true)}, false, false},
		{"privileged, podlife", &api.SecurityContext{Privileged: true}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := SecurityOpts(&api.PodSpec{}, &api.ContainerSpec{Name: "c", SecurityContext: tc.ctr}, "", nil, tc.escalationByDefault)
			if err != nil {
				t.Fatal(err)
			}
			s := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}, Linux: &specs.Linux{}}
			for _, o := range opts {
				if err := o(context.Background(), nil, &containers.Container{}, s); err != nil {
					t.Fatal(err)
				}
			}
			if s.Process.NoNewPrivileges != tc.want {
				t.Errorf("no_new_privs %v, want %v", s.Process.NoNewPrivileges, tc.want)
			}
		})
	}
}
