package ocibuild

import (
	"reflect"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

func i64(v int64) *int64 { return &v }
func bptr(v bool) *bool  { return &v }

// The container's fields win over the pod's; groups, fsGroup and sysctls come from the pod;
// no_new_privs follows allowPrivilegeEscalation, else podlife's default.
func TestEffectiveSecurity(t *testing.T) {
	pod := &api.PodSecurityContext{
		RunAsUser: i64(1000), RunAsGroup: i64(1000), RunAsNonRoot: bptr(true),
		SupplementalGroups: []int64{5, 6, 5}, FSGroup: i64(6),
		Sysctls:        []api.Sysctl{{Name: "net/ipv4/conf/eth0.100/rp_filter", Value: "1"}, {Name: "kernel.shm_rmid_forced", Value: "1"}},
		SeccompProfile: &api.SeccompProfile{Type: api.SeccompUnconfined},
	}
	for _, tc := range []struct {
		name string
		pod  *api.PodSecurityContext
		ctr  *api.SecurityContext
		want Security
	}{
		{"nothing", nil, nil, Security{noNewPrivs: true, escalationUnset: true, seccomp: api.SeccompProfile{Type: api.SeccompRuntimeDefault}}},
		{"pod only", pod, nil, Security{runAsUser: i64(1000), runAsGroup: i64(1000), runAsNonRoot: true,
			groups: []uint32{5, 6}, noNewPrivs: true, escalationUnset: true, seccomp: api.SeccompProfile{Type: api.SeccompUnconfined},
			sysctls: map[string]string{"net.ipv4.conf.eth0/100.rp_filter": "1", "kernel.shm_rmid_forced": "1"}}},
		{"container wins", &api.PodSecurityContext{RunAsUser: i64(1000), RunAsNonRoot: bptr(true), SeccompProfile: &api.SeccompProfile{Type: api.SeccompUnconfined}},
			&api.SecurityContext{RunAsUser: i64(2000), RunAsGroup: i64(3), RunAsNonRoot: bptr(false), SeccompProfile: &api.SeccompProfile{Type: api.SeccompLocalhost, LocalhostProfile: "p.json"}},
			Security{runAsUser: i64(2000), runAsGroup: i64(3), noNewPrivs: true, escalationUnset: true, seccomp: api.SeccompProfile{Type: api.SeccompLocalhost, LocalhostProfile: "p.json"}}},
		{"escalation allowed", nil, &api.SecurityContext{AllowPrivilegeEscalation: bptr(true)},
			Security{seccomp: api.SeccompProfile{Type: api.SeccompRuntimeDefault}}},
		{"sys_admin added", nil, &api.SecurityContext{Capabilities: &api.Capabilities{Add: []string{"sys_admin"}}},
			Security{caps: &api.Capabilities{Add: []string{"sys_admin"}}, escalationUnset: true, seccomp: api.SeccompProfile{Type: api.SeccompRuntimeDefault}}},
		{"all added", nil, &api.SecurityContext{Capabilities: &api.Capabilities{Add: []string{"ALL"}}},
			Security{caps: &api.Capabilities{Add: []string{"ALL"}}, escalationUnset: true, seccomp: api.SeccompProfile{Type: api.SeccompRuntimeDefault}}},
		{"privileged", &api.PodSecurityContext{SeccompProfile: &api.SeccompProfile{Type: api.SeccompRuntimeDefault}}, &api.SecurityContext{Privileged: true},
			Security{privileged: true, escalationUnset: true, seccomp: api.SeccompProfile{Type: api.SeccompUnconfined}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &api.PodSpec{SecurityContext: tc.pod}
			got := SecurityOf(s, &api.ContainerSpec{SecurityContext: tc.ctr})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The kubelet's runAsNonRoot rules and words.
func TestVerifyRunAsNonRoot(t *testing.T) {
	for _, tc := range []struct {
		user, imageUser string
		runAsUser       *int64
		want            string
	}{
		{imageUser: "", want: "container has runAsNonRoot and image will run as root"},
		{imageUser: "0", want: "container has runAsNonRoot and image will run as root"},
		{imageUser: "0:1000", want: "container has runAsNonRoot and image will run as root"},
		{imageUser: "root", want: "container has runAsNonRoot and image has non-numeric user (root), cannot verify user is non-root"},
		{imageUser: "app:app", want: "container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root"},
		{imageUser: "1000"},
		{imageUser: "1000:0"},
		{imageUser: "root", runAsUser: i64(1000)},
		{imageUser: "1000", runAsUser: i64(0), want: "container's runAsUser breaks non-root policy"},
	} {
		e := Security{runAsNonRoot: true, runAsUser: tc.runAsUser}
		err := e.VerifyRunAsNonRoot("p", "default", "app", tc.imageUser)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("image user %q: %v, want none", tc.imageUser, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want+` (pod: "p_default", container: app)`):
			t.Errorf("image user %q: %v, want %q", tc.imageUser, err, tc.want)
		}
	}
	if err := (&Security{}).VerifyRunAsNonRoot("p", "default", "app", ""); err != nil {
		t.Errorf("runAsNonRoot unset: %v", err)
	}
}
