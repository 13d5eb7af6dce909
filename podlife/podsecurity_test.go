package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podsecurity"
)

// sysAdminProbe is what the attacking container runs: it records its effective capabilities
// and whether it can mount (CAP_SYS_ADMIN's first use on the way to remounting /proc/sys) in
// /out. It never writes anything of the host's: the tmpfs is mounted on the container's own
// /tmp/m.
const sysAdminProbe = `{ grep CapEff /proc/self/status; mkdir -p /tmp/m; if mount -t tmpfs none /tmp/m 2>/out/mount.err; ` +
	`then echo 'mount: ok'; umount /tmp/m; else echo "mount: refused $(cat /out/mount.err)"; fi; } > /out/report.tmp; mv /out/report.tmp /out/report`

// sysAdminPod is a pod whose container adds caps and reports what it got in out.
func sysAdminPod(name, out string, caps ...string) podlife.PodSpec {
	return podlife.PodSpec{Name: name, RestartPolicy: podlife.RestartNever,
		Volumes: []podlife.Volume{{Name: "out", HostPath: &podlife.HostPathVolume{Path: out, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{Name: "c", Image: testImage,
			Command:         []string{"/bin/sh", "-c", sysAdminProbe},
			VolumeMounts:    []podlife.VolumeMount{{Name: "out", MountPath: "/out"}},
			SecurityContext: &podlife.SecurityContext{Capabilities: &podlife.Capabilities{Add: caps}}}}}
}

// The attack of issue 16 item 3: a manifest adds CAP_SYS_ADMIN (or ALL, SYS_MODULE, ...) and,
// with no AppArmor and the default seccomp profile, can mount and unmount in its container, the
// first step to remounting /proc/sys and reaching the host's kernel.core_pattern. A Runtime
// whose Config allows nothing refuses every capability outside the Pod Security Standards'
// baseline list, and seccompProfile Unconfined, before anything runs, naming the field.
func TestCapabilitiesRefusedByDefault(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := t.TempDir()
	pod, err := h.rt.Run(ctx, sysAdminPod("sysadmin", out, "SYS_ADMIN"))
	if err == nil {
		st, werr := pod.Wait(ctx)
		report, _ := os.ReadFile(filepath.Join(out, "report"))
		t.Fatalf("a pod adding SYS_ADMIN ran (%s, %v): the attack works:\n%s", st.Phase, werr, report)
	}
	want := `spec.containers[0].securityContext.capabilities.add`
	apiserver := `violates PodSecurity "baseline:latest": non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)`
	var pse *podsecurity.Error
	if !errors.Is(err, podlife.ErrInvalidSpec) || !errors.As(err, &pse) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), apiserver) {
		t.Errorf("Run: %v\nwant a *PodSecurityError naming %s with the API server's message %s", err, want, apiserver)
	}
	for _, caps := range [][]string{{"ALL"}, {"SYS_MODULE"}, {"SYS_PTRACE"}, {"BPF"}, {"DAC_READ_SEARCH"}, {"SYS_RAWIO"}, {"CHOWN", "cap_sys_admin"}, {"NET_ADMIN"}} {
		_, err := h.rt.Run(ctx, sysAdminPod("caps", out, caps...))
		if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), want) {
			t.Errorf("add %v: Run: %v; want a refusal naming %s", caps, err, want)
		}
	}
	unconfined := sysAdminPod("unconfined", out)
	unconfined.Containers[0].SecurityContext = &podlife.SecurityContext{SeccompProfile: &podlife.SeccompProfile{Type: podlife.SeccompUnconfined}}
	if _, err := h.rt.Run(ctx, unconfined); !errors.Is(err, podlife.ErrInvalidSpec) ||
		!strings.Contains(err.Error(), "spec.containers[0].securityContext.seccompProfile.type") ||
		!strings.Contains(err.Error(), `seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")`) {
		t.Errorf("container seccompProfile Unconfined: Run: %v; want a refusal naming the field", err)
	}
	unconfined.Containers[0].SecurityContext = nil
	unconfined.SecurityContext = &podlife.PodSecurityContext{SeccompProfile: &podlife.SeccompProfile{Type: podlife.SeccompUnconfined}}
	if _, err := h.rt.Run(ctx, unconfined); !errors.Is(err, podlife.ErrInvalidSpec) ||
		!strings.Contains(err.Error(), "spec.securityContext.seccompProfile.type") {
		t.Errorf("pod seccompProfile Unconfined: Run: %v; want a refusal naming the field", err)
	}
	if pods := h.rt.Pods(); len(pods) != 0 {
		t.Errorf("pods %v after refused runs", pods)
	}
	if _, err := os.Stat(filepath.Join(out, "report")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused container ran: report %v", err)
	}
}

// With the allowance (Config.AllowedCapabilities) the same pod runs and has what it asked
// for: CAP_SYS_ADMIN in CapEff, and mount works; seccomp Unconfined is still refused (only
// AllowPrivileged or PodSecurity "privileged" lift that).
func TestCapabilitiesAllowedByConfig(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) { c.AllowedCapabilities = []string{"cap_sys_admin"} })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := t.TempDir()
	pod, err := h.rt.Run(ctx, sysAdminPod("sysadmin", out, "SYS_ADMIN"))
	if err != nil {
		t.Fatalf("Run with Config.AllowedCapabilities SYS_ADMIN: %v", err)
	}
	if st, err := pod.Wait(ctx); err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v), want Succeeded", st.Phase, err)
	}
	report := readReport(t, filepath.Join(out, "report"))
	if report["CapEff"] != capMask(append(defaultCaps, "SYS_ADMIN")...) || report["mount"] != "ok" {
		t.Errorf("report %v: want CapEff %s (the defaults and SYS_ADMIN) and mount ok", report, capMask(append(defaultCaps, "SYS_ADMIN")...))
	}
	if err := removePod(ctx, h.rt, "sysadmin"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.Run(ctx, sysAdminPod("net", out, "NET_ADMIN")); !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("NET_ADMIN, not allowed: Run: %v, want a refusal", err)
	}
	unconfined := sysAdminPod("unconfined", out)
	unconfined.SecurityContext = &podlife.PodSecurityContext{SeccompProfile: &podlife.SeccompProfile{Type: podlife.SeccompUnconfined}}
	if _, err := h.rt.Run(ctx, unconfined); !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("seccomp Unconfined: Run: %v, want a refusal", err)
	}
}

// The same attack through `kubectl debug`: an ephemeral container that adds SYS_ADMIN to a
// running pod is refused, naming its field, and the pod is left as it was.
func TestEphemeralCapabilitiesRefusedByDefault(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod := ephemeralPod(t, ctx, h, "ephcaps")
	_, err := pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{ContainerSpec: podlife.ContainerSpec{
		Name: "debugger", Image: testImage, Command: []string{"/bin/sh", "-c", "grep CapEff /proc/self/status"},
		SecurityContext: &podlife.SecurityContext{Capabilities: &podlife.Capabilities{Add: []string{"SYS_ADMIN"}}}}})
	var pse *podsecurity.Error
	if !errors.As(err, &pse) || !errors.Is(err, podlife.ErrInvalidSpec) ||
		!strings.Contains(err.Error(), `container "debugger" must not include "SYS_ADMIN" in securityContext.capabilities.add`) ||
		!strings.Contains(err.Error(), "spec.ephemeralContainers[0].securityContext.capabilities.add") {
		t.Fatalf("AddEphemeralContainer: %v; want a *PodSecurityError naming spec.ephemeralContainers[0].securityContext.capabilities.add", err)
	}
	if st := pod.Status(); len(st.EphemeralContainerStatuses) != 0 {
		t.Errorf("ephemeral containers %+v after a refusal", st.EphemeralContainerStatuses)
	}
}
