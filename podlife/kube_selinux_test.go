package podlife_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/kube"
)

// seLinuxManifest is the shape of the upstream EmptyDir and FSGroup [NodeConformance] specs
// (test/e2e/common/storage/empty_dir.go): seLinuxOptions at the pod, an fsGroup, a non-root
// user, emptyDir volumes on disk and in memory; the container also sets its own label.
const seLinuxManifest = `apiVersion: v1
kind: Pod
metadata: {name: selinux-emptydir}
spec:
  terminationGracePeriodSeconds: 1
  securityContext:
    fsGroup: 123
    seLinuxOptions: {level: "s0"}
  volumes:
  - {name: disk, emptyDir: {}}
  - {name: mem, emptyDir: {medium: Memory}}
  containers:
  - name: app
    image: ` + testImage + `
    command: [sh, -c, "` + loopForever + `"]
    securityContext:
      runAsUser: 1001
      seLinuxOptions: {user: system_u, role: system_r, type: container_t, level: "s0:c0,c1"}
    volumeMounts: [{name: disk, mountPath: /disk}, {name: mem, mountPath: /mem}]
`

// A pod with seLinuxOptions, emptyDirs and an fsGroup runs on a host without SELinux as under
// the kubelet, which applies nothing there: on main its load failed at
// spec.securityContext.seLinuxOptions ("podlife does not apply SELinux labels"). On a host
// that runs SELinux the load is refused at each seLinuxOptions, since podlife does not label.
func TestKubeSELinuxOptionsEmptyDirFSGroup(t *testing.T) {
	res, err := kube.Load(context.Background(), kube.Options{}, strings.NewReader(seLinuxManifest))
	if _, statErr := os.Stat("/sys/fs/selinux/enforce"); statErr == nil {
		if err == nil || !strings.Contains(err.Error(), "spec.securityContext.seLinuxOptions") ||
			!strings.Contains(err.Error(), "spec.containers[0].securityContext.seLinuxOptions") {
			t.Fatalf("on an SELinux host: load error %v, want one naming both seLinuxOptions", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	// No label is applied: a container's process has the kernel's attribute, as this unconfined
	// test process: none without an LSM, "unconfined" under AppArmor (Debian's, Ubuntu's default).
	lsm := "none"
	if b, err := os.ReadFile("/proc/self/attr/current"); err == nil {
		lsm = strings.Join(strings.Fields(strings.TrimRight(string(b), "\x00")), " ")
	}
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, res.Pods[0].Spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for cmd, want := range map[string]string{
		"id -u; id -G": "1001 0 123",
		// The memory one keeps tmpfs's sticky bit, as the kubelet's.
		"stat -c '%g %a' /disk /mem":                                          "123 2777 123 3777",
		"for d in /disk /mem; do echo x > $d/f && stat -c '%u %g' $d/f; done": "1001 123 1001 123",
		// No label was applied: the process has the kernel's (none without SELinux).
		"cat /proc/self/attr/current 2>/dev/null || echo none": lsm,
	} {
		res, err := execOutput(ctx, pod, "app", []string{"sh", "-c", cmd})
		if got := strings.Join(strings.Fields(string(res.Output)), " "); err != nil || got != want {
			t.Errorf("%s: %q (%v), want %q", cmd, got, err, want)
		}
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}
