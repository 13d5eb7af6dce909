package podlife

import (
	"errors"
	"strings"
	"testing"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/podsecurity"
	"github.com/podlife/podlife/probe"
)

// capsPod is a pod whose container adds caps.
func capsPod(caps ...string) *PodSpec {
	return &PodSpec{Name: "p", Containers: []ContainerSpec{{Name: "c", Image: "busybox",
		SecurityContext: &SecurityContext{Capabilities: &Capabilities{Add: caps}}}}}
}

// The default (no PodSecurity level) refuses capabilities beyond baseline's and seccomp
// Unconfined only; AllowPrivileged, AllowedCapabilities and the privileged level lift it; the
// baseline and restricted levels are the API server's.
func TestAdmitPodSecurity(t *testing.T) {
	hostPath := &PodSpec{Name: "p", HostNetwork: true, Volumes: []Volume{{Name: "h", HostPath: &HostPathVolume{Path: "/"}}},
		Containers: []ContainerSpec{{Name: "c", Image: "busybox", Ports: []ContainerPort{{ContainerPort: 80, HostPort: 80}},
			VolumeMounts: []VolumeMount{{Name: "h", MountPath: "/h"}}}}}
	unconfined := &PodSpec{Name: "p", SecurityContext: &PodSecurityContext{SeccompProfile: &SeccompProfile{Type: SeccompUnconfined}},
		Containers: []ContainerSpec{{Name: "c", Image: "busybox"}}}
	for _, tc := range []struct {
		name string
		cfg  Config
		spec *PodSpec
		want string // "" admits
	}{
		{"default SYS_ADMIN", Config{}, capsPod("SYS_ADMIN"), `violates PodSecurity "baseline:latest": non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add); fields: spec.containers[0].securityContext.capabilities.add; allow with Config.AllowedCapabilities`},
		{"default baseline caps", Config{}, capsPod("CHOWN", "NET_BIND_SERVICE", "SYS_CHROOT"), ""},
		{"default NET_RAW", Config{}, capsPod("NET_RAW"), `must not include "NET_RAW"`},
		{"default Unconfined", Config{}, unconfined, `seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined"); fields: spec.securityContext.seccompProfile.type`},
		{"default hostPath, hostNetwork, hostPort", Config{}, hostPath, ""},
		{"AllowPrivileged", Config{AllowPrivileged: true}, capsPod("ALL"), ""},
		{"AllowPrivileged Unconfined", Config{AllowPrivileged: true}, unconfined, ""},
		{"AllowedCapabilities", Config{AllowedCapabilities: []string{"sys_admin", "CAP_NET_ADMIN"}}, capsPod("SYS_ADMIN", "NET_ADMIN", "KILL"), ""},
		{"AllowedCapabilities partial", Config{AllowedCapabilities: []string{"NET_ADMIN"}}, capsPod("SYS_ADMIN", "NET_ADMIN"), `must not include "SYS_ADMIN" in`},
		{"AllowedCapabilities ALL", Config{AllowedCapabilities: []string{"ALL"}}, capsPod("ALL", "BPF"), ""},
		{"privileged level", Config{PodSecurity: podsecurity.Privileged}, capsPod("ALL"), ""},
		{"baseline hostPath", Config{PodSecurity: podsecurity.Baseline, AllowPrivileged: true}, hostPath,
			`violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), hostPath volumes (volume "h"), hostPort (container "c" uses hostPort 80); fields: spec.hostNetwork, spec.volumes[0].hostPath, spec.containers[0].ports[0].hostPort`},
		{"baseline AllowedCapabilities", Config{PodSecurity: podsecurity.Baseline, AllowedCapabilities: []string{"SYS_ADMIN"}}, capsPod("SYS_ADMIN"), ""},
		{"restricted", Config{PodSecurity: podsecurity.Restricted}, capsPod("CHOWN"), `violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.admitSecurity(tc.spec)
			var pse *podsecurity.Error
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (!errors.As(err, &pse) || !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("admitSecurity: %v\nwant a *podsecurity.Error with %q", err, tc.want)
			}
		})
	}
}

// A refusal by the gates and by the Pod Security check at once reports both.
func TestAdmitSecurityJoins(t *testing.T) {
	spec := capsPod("SYS_ADMIN")
	spec.Containers[0].SecurityContext.Privileged = true
	err := (&Config{}).admitSecurity(spec)
	var ve *ValidationError
	var pse *podsecurity.Error
	if !errors.As(err, &ve) || !errors.As(err, &pse) || !errors.Is(err, ErrInvalidSpec) {
		t.Fatalf("admitSecurity: %v; want a *ValidationError (privileged) and a *podsecurity.Error (SYS_ADMIN)", err)
	}
	if !strings.Contains(ve.Error(), "spec.containers[0].securityContext.privileged") || pse.Fields[0] != "spec.containers[0].securityContext.capabilities.add" {
		t.Errorf("admitSecurity: %v", err)
	}
}

// Probe and hook hosts (probes run from the host's network namespace) fail baseline, with the
// field named; ephemeral containers are checked too.
func TestPodSecurityHostsAndEphemerals(t *testing.T) {
	spec := &PodSpec{Name: "p", Containers: []ContainerSpec{{Name: "c", Image: "busybox",
		LivenessProbe: &probe.Spec{Prober: probe.TCPSocket(22, probe.WithHost("127.0.0.1"))},
		PreStop:       hook.HTTPGet(80, "/", hook.WithHost("169.254.169.254"))}}}
	err := podsecurity.Check(podsecurity.Baseline, spec)
	want := `violates PodSecurity "baseline:latest": probe or lifecycle host (container "c" uses probe or lifecycle hosts "127.0.0.1", "169.254.169.254"); ` +
		`fields: spec.containers[0].livenessProbe, spec.containers[0].lifecycle.preStop`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckPodSecurity: %v\nwant %s", err, want)
	}
	spec = capsPod()
	debug := ContainerSpec{Name: "debug", Image: "busybox", SecurityContext: &SecurityContext{Capabilities: &Capabilities{Add: []string{"SYS_PTRACE"}}}}
	err = (&Config{}).admitPodSecurity(spec, []ContainerSpec{{Name: "d0", Image: "busybox"}, debug})
	if err == nil || !strings.Contains(err.Error(), `container "debug" must not include "SYS_PTRACE"`) ||
		!strings.Contains(err.Error(), "fields: spec.ephemeralContainers[1].securityContext.capabilities.add") {
		t.Errorf("ephemeral: %v", err)
	}
}

func TestConfigValidatePodSecurity(t *testing.T) {
	err := Config{PodSecurity: "strict", AllowedCapabilities: []string{"NET_ADMIN", "FLY"}}.Validate()
	for _, want := range []string{`config.podSecurity: unsupported value "strict"`, `config.allowedCapabilities[1]: "FLY" is not a Linux capability`} {
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
	if err := podsecurity.Check("strict", capsPod()); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("CheckPodSecurity(strict): %v", err)
	}
	if err := (Config{PodSecurity: podsecurity.Restricted, AllowedCapabilities: []string{"cap_bpf", "ALL"}}).Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
