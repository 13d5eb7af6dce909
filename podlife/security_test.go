package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/podsecurity"
	"github.com/podlife/podlife/podlife/reasons"
)

// capBits are the bit numbers of the capabilities the tests look for (linux/capability.h).
var capBits = map[string]uint{
	"CHOWN": 0, "DAC_OVERRIDE": 1, "FOWNER": 3, "FSETID": 4, "KILL": 5, "SETGID": 6, "SETUID": 7,
	"SETPCAP": 8, "NET_BIND_SERVICE": 10, "NET_ADMIN": 12, "NET_RAW": 13, "SYS_CHROOT": 18,
	"SYS_ADMIN": 21, "SYS_TIME": 25, "MKNOD": 27, "AUDIT_WRITE": 29, "SETFCAP": 31,
}

// defaultCaps is containerd's (and Docker's) default capability set.
var defaultCaps = []string{"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID",
	"SETUID", "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"}

// capMask is /proc/self/status's CapEff for the named capabilities.
func capMask(names ...string) string {
	var m uint64
	for _, n := range names {
		b, ok := capBits[n]
		if !ok {
			panic("capMask: unknown " + n)
		}
		m |= 1 << b
	}
	return fmt.Sprintf("%016x", m)
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, x := range list {
		if !strings.Contains(" "+strings.Join(drop, " ")+" ", " "+x+" ") {
			out = append(out, x)
		}
	}
	return out
}

// report is what every container of the security pod writes about itself, one "key: value" a line.
const report = `o=/data/$(hostname)-$C; { grep -E '^(Uid|Gid|Groups|CapEff|NoNewPrivs|Seccomp):' /proc/self/status; ` +
	`echo "id: $(id -u) $(id -g) $(id -G)"; ` +
	`if touch /rootfs-write 2>/dev/null; then echo 'rootwrite: ok'; else echo 'rootwrite: refused'; fi; ` +
	`echo "portrange: $(cat /proc/sys/net/ipv4/ip_local_port_range | tr '\t' ' ')"; ` +
	`echo "shm_rmid_forced: $(cat /proc/sys/kernel/shm_rmid_forced)"; ` +
	`echo "somaxconn: $(cat /proc/sys/net/core/somaxconn)"; ` +
	`echo "datadir: $(stat -c '%g %A' /data)"; ` +
	`echo "memdir: $(stat -c '%g %A' /mem)"; ` +
	`echo "secretfile: $(stat -c '%g %A' /files/secret) $(cat /files/secret)"; ` +
	`touch /data/file-$C && echo "datafile: $(stat -c %g /data/file-$C)"; ` +
	`if mkdir /tmp/d 2>/dev/null; then echo 'mkdir: ok'; else echo 'mkdir: refused'; fi; } > $o.tmp; mv $o.tmp $o`

// readReport parses a report file.
func readReport(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the container wrote no report: %v", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, ":")
		m[k] = strings.Join(strings.Fields(v), " ")
	}
	return m
}

// mkdirDenied is an OCI seccomp profile that allows everything but mkdir and mkdirat (EPERM).
const mkdirDenied = `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}`

// The pod and container security contexts, observed from inside each container: users and
// groups, capabilities, no_new_privs, seccomp, a read-only root, sysctls, emptyDirs and a files
// volume owned by the fsGroup; and the defaults of a container that sets nothing.
func TestSecurityContext(t *testing.T) {
	profiles := t.TempDir()
	if err := os.WriteFile(filepath.Join(profiles, "no-mkdir.json"), []byte(mkdirDenied), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(c *podlife.Config) {
		c.AllowedUnsafeSysctls = []string{"net.core.*"}
		c.SeccompProfileRoot = profiles
		// The pod adds NET_ADMIN, SYS_TIME and SYS_ADMIN and asks for seccomp Unconfined.
		c.PodSecurity = podsecurity.Privileged
	})
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	ctr := func(name string, sc *podlife.SecurityContext) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, SecurityContext: sc,
			Env:          []podlife.EnvVar{{Name: "C", Value: name}},
			Command:      []string{"/bin/sh", "-c", report},
			VolumeMounts: []podlife.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "mem", MountPath: "/mem"}, {Name: "files", MountPath: "/files"}}}
	}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "secctx", RestartPolicy: podlife.RestartNever,
		Volumes: []podlife.Volume{
			{Name: "data", EmptyDir: &podlife.EmptyDirVolume{}},
			{Name: "mem", EmptyDir: &podlife.EmptyDirVolume{Medium: podlife.MediumMemory}},
			// Owner-only: readable by the non-root containers through the fsGroup only.
			{Name: "files", Files: &podlife.FilesVolume{Files: []podlife.File{{Path: "secret", Data: []byte("s3cret"), Mode: 0o400}}}},
		},
		SecurityContext: &podlife.PodSecurityContext{
			SupplementalGroups: []int64{3000, 3001},
			FSGroup:            ptr[int64](2000),
			Sysctls: []podlife.Sysctl{
				{Name: "net.ipv4.ip_local_port_range", Value: "20000 30000"},
				{Name: "kernel/shm_rmid_forced", Value: "1"},
				{Name: "net.core.somaxconn", Value: "1234"}, // unsafe, allowed by the Config
			},
		},
		Containers: []podlife.ContainerSpec{
			ctr("defaults", nil),
			ctr("user", &podlife.SecurityContext{RunAsUser: ptr[int64](1000), RunAsGroup: ptr[int64](1001)}),
			ctr("nobody", &podlife.SecurityContext{RunAsUser: ptr[int64](65534)}),
			ctr("caps", &podlife.SecurityContext{
				Capabilities:             &podlife.Capabilities{Add: []string{"NET_ADMIN", "CAP_SYS_TIME"}, Drop: []string{"net_raw", "CHOWN"}},
				AllowPrivilegeEscalation: ptr(true),
				SeccompProfile:           &podlife.SeccompProfile{Type: podlife.SeccompUnconfined},
			}),
			ctr("dropall", &podlife.SecurityContext{Capabilities: &podlife.Capabilities{Add: []string{"NET_BIND_SERVICE"}, Drop: []string{"ALL"}}}),
			ctr("sysadmin", &podlife.SecurityContext{Capabilities: &podlife.Capabilities{Add: []string{"SYS_ADMIN"}}}),
			ctr("readonly", &podlife.SecurityContext{ReadOnlyRootFilesystem: true}),
			ctr("localhost", &podlife.SecurityContext{SeccompProfile: &podlife.SeccompProfile{Type: podlife.SeccompLocalhost, LocalhostProfile: "no-mkdir.json"}}),
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v), want Succeeded: %+v", st.Phase, err, st.ContainerStatuses)
	}
	dir := filepath.Join(pod.Sandbox().Dir(), "volumes", "data")
	reports := map[string]map[string]string{}
	for _, c := range st.ContainerStatuses {
		reports[c.Name] = readReport(t, filepath.Join(dir, "secctx-"+c.Name))
	}
	defaults := capMask(defaultCaps...)
	if defaults != "00000000a80425fb" {
		t.Fatalf("the test's default set is %s, want a80425fb", defaults)
	}
	all := map[string]string{ // what every container sees
		"portrange": "20000 30000", "shm_rmid_forced": "1", "somaxconn": "1234",
		// memdir: a memory emptyDir's tmpfs keeps its sticky bit (mode 1777), as the kubelet's.
		"datadir": "2000 drwxrwsrwx", "datafile": "2000", "memdir": "2000 drwxrwsrwt",
		"secretfile": "2000 -r--r----- s3cret", // fsGroup gives the group read
	}
	want := map[string]map[string]string{
		"defaults": {"Uid": "0 0 0 0", "Gid": "0 0 0 0", "Groups": "0 2000 3000 3001", "id": "0 0 0 2000 3000 3001",
			"CapEff": defaults, "NoNewPrivs": "1", "Seccomp": "2", "rootwrite": "ok", "mkdir": "ok"},
		"user": {"Uid": "1000 1000 1000 1000", "Gid": "1001 1001 1001 1001", "id": "1000 1001 1001 2000 3000 3001",
			"NoNewPrivs": "1", "Seccomp": "2", "rootwrite": "refused",
			// A non-root user keeps no effective capability (the kernel clears them on the UID change).
			"CapEff": "0000000000000000"},
		// No runAsGroup: the group of UID 65534 in the image's /etc/passwd.
		"nobody": {"Uid": "65534 65534 65534 65534", "Gid": "65534 65534 65534 65534", "id": "65534 65534 65534 2000 3000 3001"},
		"caps": {"CapEff": capMask(append(without(defaultCaps, "NET_RAW", "CHOWN"), "NET_ADMIN", "SYS_TIME")...),
			"NoNewPrivs": "0", "Seccomp": "0"},
		"dropall":   {"CapEff": capMask("NET_BIND_SERVICE"), "NoNewPrivs": "1", "Seccomp": "2"},
		"sysadmin":  {"CapEff": capMask(append(defaultCaps, "SYS_ADMIN")...), "NoNewPrivs": "0", "Seccomp": "2"},
		"readonly":  {"rootwrite": "refused", "CapEff": defaults},
		"localhost": {"Seccomp": "2", "mkdir": "refused", "rootwrite": "ok"},
	}
	for name, w := range want {
		got := reports[name]
		for k, v := range all {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got[k], v)
			}
		}
		for k, v := range w {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got[k], v)
			}
		}
	}
	if t.Failed() || testing.Verbose() {
		for name, r := range reports {
			t.Logf("%s: %v", name, r)
		}
	}
}

// runAsNonRoot is checked against the image's user with the kubelet's words; a non-root
// numeric image user runs; privileged and unsafe sysctls are refused by a Runtime whose
// Config does not allow them.
func TestSecurityContextRefusals(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	for _, img := range []struct{ ref, user string }{{"podlife.test/busybox-uid:1", "1000"}, {"podlife.test/busybox-named:1", "nobody"}} {
		var buf bytes.Buffer
		if err := podlifetest.BusyboxArchive(&buf, img.ref, podlifetest.WithUser(img.user)); err != nil {
			t.Fatal(err)
		}
		h.keepImages = append(h.keepImages, img.ref)
		if _, err := h.rt.ImportImage(ctx, &buf); err != nil {
			t.Fatalf("import %s: %v", img.ref, err)
		}
	}
	nonRoot := &podlife.PodSecurityContext{RunAsNonRoot: ptr(true)}
	for _, tc := range []struct {
		name, image, want string
	}{
		{"nonroot-root", testImage, `container has runAsNonRoot and image will run as root (pod: "nonroot-root_default", container: app)`},
		{"nonroot-named", "podlife.test/busybox-named:1", `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "nonroot-named_default", container: app)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod, err := h.rt.Start(ctx, podlife.PodSpec{Name: tc.name, RestartPolicy: podlife.RestartNever, SecurityContext: nonRoot,
				Containers: []podlife.ContainerSpec{{Name: "app", Image: tc.image, Command: []string{"/bin/true"}}}})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			err = pod.WaitStarted(ctx)
			var se *podlife.StartError
			if !errors.As(err, &se) || se.Step != podlife.StepCreate || se.Err.Error() != tc.want {
				t.Fatalf("Run: %v, want a create StartError %q", err, tc.want)
			}
			w := pod.Status().ContainerStatuses[0].State.Waiting
			if w == nil || w.Reason != reasons.CreateContainerConfigError || w.Message != tc.want {
				t.Errorf("waiting %+v, want CreateContainerConfigError", w)
			}
			if err := pod.Remove(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("nonroot-uid", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "nonroot-uid", RestartPolicy: podlife.RestartNever, SecurityContext: nonRoot,
			Containers: []podlife.ContainerSpec{{Name: "app", Image: "podlife.test/busybox-uid:1",
				Command: []string{"/bin/sh", "-c", "test $(id -u) = 1000 && test $(id -g) = 0"}}}})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if st, err := pod.Wait(ctx); err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Errorf("phase %s (%v), want Succeeded: the image's UID 1000 (group 0: not in /etc/passwd)", st.Phase, err)
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("privileged", func(t *testing.T) {
		_, err := h.rt.Start(ctx, podlife.PodSpec{Name: "privileged", Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage,
			SecurityContext: &podlife.SecurityContext{Privileged: true}}}})
		if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), "spec.containers[0].securityContext.privileged: Forbidden: privileged containers are not allowed: set Config.AllowPrivileged") {
			t.Errorf("Start: %v, want privileged refused", err)
		}
	})
	t.Run("unsafe-sysctl", func(t *testing.T) {
		_, err := h.rt.Start(ctx, podlife.PodSpec{Name: "unsafe-sysctl", Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage}},
			SecurityContext: &podlife.PodSecurityContext{Sysctls: []podlife.Sysctl{{Name: "net.core.somaxconn", Value: "1"}}}})
		if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), `spec.securityContext.sysctls[0].name: Forbidden: unsafe sysctl "net.core.somaxconn" is not allowed`) {
			t.Errorf("Start: %v, want the unsafe sysctl refused", err)
		}
	})
}

// A privileged container, on a Runtime that allows them: every capability of the host, no
// seccomp filter, no no_new_privs, writable /sys and the host's devices.
func TestSecurityContextPrivileged(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) { c.AllowPrivileged = true })
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "privileged", RestartPolicy: podlife.RestartNever,
		Volumes: []podlife.Volume{{Name: "data", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, SecurityContext: &podlife.SecurityContext{Privileged: true},
			VolumeMounts: []podlife.VolumeMount{{Name: "data", MountPath: "/data"}},
			Command: []string{"/bin/sh", "-c", `{ grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status; ` +
				`echo "sys: $(grep ' /sys ' /proc/mounts | cut -d' ' -f4 | cut -d, -f1)"; ` +
				`if test -e /dev/kmsg; then echo 'kmsg: yes'; else echo 'kmsg: no'; fi; } > /data/report`}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if st, err := pod.Wait(ctx); err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v), want Succeeded", st.Phase, err)
	}
	got := readReport(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "data", "report"))
	hostBnd := hostCapBnd(t)
	for k, v := range map[string]string{"CapEff": hostBnd, "NoNewPrivs": "0", "Seccomp": "0", "sys": "rw", "kmsg": "yes"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (report %v)", k, got[k], v, got)
		}
	}
}

// hostCapBnd is this process's bounding set: what "every capability" is on this host.
func hostCapBnd(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("%016x", n)
		}
	}
	t.Fatal("no CapBnd in /proc/self/status")
	return ""
}
