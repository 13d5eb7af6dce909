package podlife

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func i64(v int64) *int64 { return &v }
func bptr(v bool) *bool  { return &v }

// The container's fields win over the pod's; groups, fsGroup and sysctls come from the pod;
// no_new_privs follows allowPrivilegeEscalation, else podlife's default.
func TestEffectiveSecurity(t *testing.T) {
	pod := &PodSecurityContext{
		RunAsUser: i64(1000), RunAsGroup: i64(1000), RunAsNonRoot: bptr(true),
		SupplementalGroups: []int64{5, 6, 5}, FSGroup: i64(6),
		Sysctls:        []Sysctl{{Name: "net/ipv4/conf/eth0.100/rp_filter", Value: "1"}, {Name: "kernel.shm_rmid_forced", Value: "1"}},
		SeccompProfile: &SeccompProfile{Type: SeccompUnconfined},
	}
	for _, tc := range []struct {
		name string
		pod  *PodSecurityContext
		ctr  *SecurityContext
		want effectiveSecurity
	}{
		{"nothing", nil, nil, effectiveSecurity{noNewPrivs: true, seccomp: SeccompProfile{Type: SeccompRuntimeDefault}}},
		{"pod only", pod, nil, effectiveSecurity{runAsUser: i64(1000), runAsGroup: i64(1000), runAsNonRoot: true,
			groups: []uint32{5, 6}, noNewPrivs: true, seccomp: SeccompProfile{Type: SeccompUnconfined},
			sysctls: map[string]string{"net.ipv4.conf.eth0/100.rp_filter": "1", "kernel.shm_rmid_forced": "1"}}},
		{"container wins", &PodSecurityContext{RunAsUser: i64(1000), RunAsNonRoot: bptr(true), SeccompProfile: &SeccompProfile{Type: SeccompUnconfined}},
			&SecurityContext{RunAsUser: i64(2000), RunAsGroup: i64(3), RunAsNonRoot: bptr(false), SeccompProfile: &SeccompProfile{Type: SeccompLocalhost, LocalhostProfile: "p.json"}},
			effectiveSecurity{runAsUser: i64(2000), runAsGroup: i64(3), noNewPrivs: true, seccomp: SeccompProfile{Type: SeccompLocalhost, LocalhostProfile: "p.json"}}},
		{"escalation allowed", nil, &SecurityContext{AllowPrivilegeEscalation: bptr(true)},
			effectiveSecurity{seccomp: SeccompProfile{Type: SeccompRuntimeDefault}}},
		{"sys_admin added", nil, &SecurityContext{Capabilities: &Capabilities{Add: []string{"sys_admin"}}},
			effectiveSecurity{caps: &Capabilities{Add: []string{"sys_admin"}}, seccomp: SeccompProfile{Type: SeccompRuntimeDefault}}},
		{"all added", nil, &SecurityContext{Capabilities: &Capabilities{Add: []string{"ALL"}}},
			effectiveSecurity{caps: &Capabilities{Add: []string{"ALL"}}, seccomp: SeccompProfile{Type: SeccompRuntimeDefault}}},
		{"privileged", &PodSecurityContext{SeccompProfile: &SeccompProfile{Type: SeccompRuntimeDefault}}, &SecurityContext{Privileged: true},
			effectiveSecurity{privileged: true, seccomp: SeccompProfile{Type: SeccompUnconfined}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &PodSpec{SecurityContext: tc.pod}
			got := securityOf(s, &ContainerSpec{SecurityContext: tc.ctr})
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
		e := effectiveSecurity{runAsNonRoot: true, runAsUser: tc.runAsUser}
		err := e.verifyRunAsNonRoot("p", "default", "app", tc.imageUser)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("image user %q: %v, want none", tc.imageUser, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want+` (pod: "p_default", container: app)`):
			t.Errorf("image user %q: %v, want %q", tc.imageUser, err, tc.want)
		}
	}
	if err := (&effectiveSecurity{}).verifyRunAsNonRoot("p", "default", "app", ""); err != nil {
		t.Errorf("runAsNonRoot unset: %v", err)
	}
}

// Validation names the field of each problem.
func TestValidateSecurity(t *testing.T) {
	base := func() PodSpec {
		return PodSpec{Name: "p", Containers: []ContainerSpec{{Name: "app", Image: "busybox"}}}
	}
	for _, tc := range []struct {
		name string
		mod  func(*PodSpec)
		want string
	}{
		{"negative uid", func(s *PodSpec) { s.SecurityContext = &PodSecurityContext{RunAsUser: i64(-1)} }, "spec.securityContext.runAsUser: Invalid value: -1"},
		{"huge gid", func(s *PodSpec) {
			s.Containers[0].SecurityContext = &SecurityContext{RunAsGroup: i64(1 << 31)}
		}, "spec.containers[0].securityContext.runAsGroup: Invalid value: 2147483648"},
		{"bad supplemental", func(s *PodSpec) { s.SecurityContext = &PodSecurityContext{SupplementalGroups: []int64{1, -2}} }, "spec.securityContext.supplementalGroups[1]: Invalid value"},
		{"bad fsGroup", func(s *PodSpec) { s.SecurityContext = &PodSecurityContext{FSGroup: i64(-5)} }, "spec.securityContext.fsGroup: Invalid value"},
		{"unknown cap", func(s *PodSpec) {
			s.Containers[0].SecurityContext = &SecurityContext{Capabilities: &Capabilities{Drop: []string{"NET_RAW", "FLY"}}}
		}, `spec.containers[0].securityContext.capabilities.drop[1]: Unsupported value: "FLY"`},
		{"unmasked", func(s *PodSpec) { s.Containers[0].SecurityContext = &SecurityContext{ProcMount: ProcMountUnmasked} },
			`spec.containers[0].securityContext.procMount: Unsupported value: "Unmasked"`},
		{"no escalation but privileged", func(s *PodSpec) {
			s.Containers[0].SecurityContext = &SecurityContext{AllowPrivilegeEscalation: bptr(false), Privileged: true}
		}, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"},
		{"no escalation but sys_admin", func(s *PodSpec) {
			s.Containers[0].SecurityContext = &SecurityContext{AllowPrivilegeEscalation: bptr(false), Capabilities: &Capabilities{Add: []string{"CAP_SYS_ADMIN"}}}
		}, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"},
		{"seccomp without type", func(s *PodSpec) { s.SecurityContext = &PodSecurityContext{SeccompProfile: &SeccompProfile{}} }, "spec.securityContext.seccompProfile.type: Required value"},
		{"seccomp bad type", func(s *PodSpec) {
			s.Containers[0].SecurityContext = &SecurityContext{SeccompProfile: &SeccompProfile{Type: "Strict"}}
		}, `spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Strict"`},
		{"localhost without profile", func(s *PodSpec) {
			s.SecurityContext = &PodSecurityContext{SeccompProfile: &SeccompProfile{Type: SeccompLocalhost}}
		}, "spec.securityContext.seccompProfile.localhostProfile: Required value"},
		{"localhost escaping", func(s *PodSpec) {
			s.SecurityContext = &PodSecurityContext{SeccompProfile: &SeccompProfile{Type: SeccompLocalhost, LocalhostProfile: "../../etc/x.json"}}
		}, `spec.securityContext.seccompProfile.localhostProfile: Invalid value: "../../etc/x.json"`},
		{"localhost absolute", func(s *PodSpec) {
			s.SecurityContext = &PodSecurityContext{SeccompProfile: &SeccompProfile{Type: SeccompLocalhost, LocalhostProfile: "/etc/x.json"}}
		}, `spec.securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/x.json"`},
		{"profile with default", func(s *PodSpec) {
			s.SecurityContext = &PodSecurityContext{SeccompProfile: &SeccompProfile{Type: SeccompRuntimeDefault, LocalhostProfile: "x"}}
		}, "can only be set when seccomp type is Localhost"},
		{"sysctl not namespaced", func(s *PodSpec) {
			s.SecurityContext = &PodSecurityContext{Sysctls: []Sysctl{{Name: "vm.swappiness", Value: "1"}}}
		}, `spec.securityContext.sysctls[0].name: Forbidden: sysctl "vm.swappiness" is not namespaced`},
		{"sysctl bad name", func(s *PodSpec) { s.SecurityContext = &PodSecurityContext{Sysctls: []Sysctl{{Name: "Net..x"}}} }, "spec.securityContext.sysctls[0].name: Invalid value"},
		{"sysctl twice", func(s *PodSpec) {
			s.SecurityContext = &PodSecurityContext{Sysctls: []Sysctl{{Name: "net.ipv4.tcp_syncookies"}, {Name: "net/ipv4/tcp_syncookies"}}}
		}, `spec.securityContext.sysctls[1].name: Duplicate value`},
		{"net sysctl with host network", func(s *PodSpec) {
			s.HostNetwork = true
			s.SecurityContext = &PodSecurityContext{Sysctls: []Sysctl{{Name: "net.ipv4.tcp_syncookies", Value: "1"}}}
		}, `spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.tcp_syncookies": may not be specified when 'hostNetwork' is true`},
		{"init container too", func(s *PodSpec) {
			s.InitContainers = []ContainerSpec{{Name: "init", Image: "busybox", SecurityContext: &SecurityContext{RunAsUser: i64(-3)}}}
		}, "spec.initContainers[0].securityContext.runAsUser: Invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.mod(&s)
			err := s.Validate()
			if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
	ok := base()
	ok.HostNetwork = true
	ok.SecurityContext = &PodSecurityContext{RunAsUser: i64(1000), RunAsNonRoot: bptr(true), FSGroup: i64(2000),
		Sysctls: []Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}}}
	ok.Containers[0].SecurityContext = &SecurityContext{Capabilities: &Capabilities{Add: []string{"net_admin", "ALL"}, Drop: []string{"all"}},
		AllowPrivilegeEscalation: bptr(true), ProcMount: ProcMountDefault, ReadOnlyRootFilesystem: true}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid spec: %v", err)
	}
	// runAsNonRoot with runAsUser 0 is valid, as for the API server: the kubelet reports it on
	// the container (CreateContainerConfigError), and so does podlife.
	root := base()
	root.SecurityContext = &PodSecurityContext{RunAsNonRoot: bptr(true)}
	root.Containers[0].SecurityContext = &SecurityContext{RunAsUser: i64(0)}
	if err := root.Validate(); err != nil {
		t.Errorf("runAsNonRoot with runAsUser 0: %v, want it valid", err)
	}
}

// The Config decides on privileged containers, unsafe sysctls and Localhost profiles.
func TestAdmitSecurity(t *testing.T) {
	spec := PodSpec{Name: "p",
		SecurityContext: &PodSecurityContext{Sysctls: []Sysctl{{Name: "net.ipv4.tcp_syncookies"}, {Name: "net.core.somaxconn"}, {Name: "kernel.msgmax"}}},
		Containers: []ContainerSpec{{Name: "app", Image: "busybox", SecurityContext: &SecurityContext{Privileged: true,
			SeccompProfile: &SeccompProfile{Type: SeccompLocalhost, LocalhostProfile: "a.json"}}}}}
	err := (&Config{}).admitSecurity(&spec)
	for _, want := range []string{
		`spec.securityContext.sysctls[1].name: Forbidden: unsafe sysctl "net.core.somaxconn" is not allowed`,
		`spec.securityContext.sysctls[2].name: Forbidden: unsafe sysctl "kernel.msgmax" is not allowed`,
		"spec.containers[0].securityContext.privileged: Forbidden: privileged containers are not allowed: set Config.AllowPrivileged",
		"spec.containers[0].securityContext.seccompProfile: Forbidden: Localhost profiles need Config.SeccompProfileRoot",
	} {
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), want) {
			t.Errorf("admit: %v, want %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sysctls[0]") {
		t.Errorf("admit: %v: a safe sysctl was refused", err)
	}
	allow := Config{AllowPrivileged: true, AllowedUnsafeSysctls: []string{"net.core.*", "kernel.msgmax"}, SeccompProfileRoot: "/x"}
	if err := allow.admitSecurity(&spec); err != nil {
		t.Errorf("allowed: %v", err)
	}
}

func TestConfigValidateSecurity(t *testing.T) {
	err := Config{SeccompProfileRoot: "rel", AllowedUnsafeSysctls: []string{"net.*", "vm.swappiness", "*"}}.Validate()
	for _, want := range []string{`config.seccompProfileRoot: "rel" must be an absolute path`,
		`config.allowedUnsafeSysctls[1]: "vm.swappiness" is not a namespaced sysctl`, `config.allowedUnsafeSysctls[2]: "*"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `"net.*"`) {
		t.Errorf("Validate: %v: net.* is namespaced", err)
	}
}

// A Localhost profile is read from inside the root only: a symbolic link out of it fails.
func TestLoadSeccompProfile(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	const profile = `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`
	for dir, name := range map[string]string{root: "ok.json", outside: "secret.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(profile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(root, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Config{SeccompProfileRoot: root}
	p, err := c.loadSeccompProfile("ok.json")
	if err != nil || p.DefaultAction != "SCMP_ACT_ERRNO" || len(p.Syscalls) != 1 {
		t.Errorf("ok.json: %+v, %v", p, err)
	}
	for _, name := range []string{"link.json", "../" + filepath.Base(outside) + "/secret.json", "missing.json", "bad.json"} {
		if _, err := c.loadSeccompProfile(name); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		}
	}
}
