package podlife

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/hostlookup"
)

func i64(v int64) *int64 { return &v }
func bptr(v bool) *bool  { return &v }

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
		{"unmasked", func(s *PodSpec) { s.Containers[0].SecurityContext = &SecurityContext{ProcMount: api.ProcMountUnmasked} },
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
	p, err := hostlookup.SeccompProfile(c.SeccompProfileRoot, "ok.json")
	if err != nil || p.DefaultAction != "SCMP_ACT_ERRNO" || len(p.Syscalls) != 1 {
		t.Errorf("ok.json: %+v, %v", p, err)
	}
	for _, name := range []string{"link.json", "../" + filepath.Base(outside) + "/secret.json", "missing.json", "bad.json"} {
		if _, err := hostlookup.SeccompProfile(c.SeccompProfileRoot, name); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		}
	}
}
