package podlife_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// hostMarker writes a file on the host, outside any volume, that no container may ever see. It
// returns the file's host path.
func hostMarker(t *testing.T) string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "host-marker")
	if err := os.WriteFile(marker, []byte("host"), 0o644); err != nil {
		t.Fatal(err)
	}
	return marker
}

// privateMountsLeft lists the private volume mount points (see podlife's volumeMounts) mounted
// under the state dir.
func privateMountsLeft(t *testing.T, stateDir string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], stateDir+"/") && strings.Contains(f[4], "/subpaths/") {
			out = append(out, f[4])
		}
	}
	return out
}

// The CVE-2017-1002101 attack: a container replaces its subPath with a link out of the volume,
// then exits; its restart (the next create mounting the subPath) must be refused with the field
// named, and the container never sees the host's files.
func TestSubPathSymlinkSwapOnRestart(t *testing.T) {
	h := newHarness(t, fastBackoff)
	marker := hostMarker(t)
	for _, tc := range []struct{ name, link string }{
		{"root", "/"},
		{"etc", "/etc"},
		{"climb", "../../../../../../../../../.."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
			defer cancel()
			// Each run logs whether it sees the marker through the subPath, then swaps the
			// subPath (created as a directory by the first create) for the link, and fails.
			script := fmt.Sprintf(`if [ -e /s%s ]; then echo escaped >> /data/log; fi; echo run >> /data/log; `+
				`rmdir /data/sub && ln -s %s /data/sub; exit 1`, marker, tc.link)
			pod, err := h.rt.Run(ctx, podlife.PodSpec{
				Name: "swap-" + tc.name, TerminationGracePeriod: ptr(3 * time.Second),
				Volumes: []podlife.Volume{{Name: "data", EmptyDir: &podlife.EmptyDirVolume{}}},
				Containers: []podlife.ContainerSpec{{
					Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", script},
					VolumeMounts: []podlife.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "data", MountPath: "/s", SubPath: "sub"}},
				}},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			// Two refused creates: the restart, and the one after the back-off. (A restart that
			// runs instead is the escape: the checks below tell what it saw.)
			failed := func(e podlife.Event) bool { return e.Container == "a" && e.Reason == reasons.Failed }
			restarted := func(e podlife.Event) bool {
				return e.Container == "a" && e.Reason == reasons.Started && len(events(pod, "a", reasons.Started)) > 1
			}
			e := waitEventMatch(t, ctx, pod, "Failed event", func(e podlife.Event) bool { return failed(e) || restarted(e) })
			if failed(e) {
				for _, want := range []string{"volumeMounts[1].subPath", `subPath "sub"`, "leads out of the volume"} {
					if !strings.Contains(e.Message, want) {
						t.Errorf("Failed event %q does not say %q", e.Message, want)
					}
				}
				waitEventMatch(t, ctx, pod, "second Failed event", func(e podlife.Event) bool {
					return failed(e) && len(events(pod, "a", reasons.Failed)) >= 2 || restarted(e)
				})
			}
			vol := filepath.Join(pod.Sandbox().Dir(), "volumes", "data")
			if fi, err := os.Lstat(filepath.Join(vol, "sub")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the attack did not happen: sub is %v, %v", fi, err)
			}
			b, err := os.ReadFile(filepath.Join(vol, "log"))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b); got != "run\n" {
				t.Errorf("the container's runs logged %q, want one run (the first), which saw no host file", got)
			}
			if n := len(events(pod, "a", reasons.Started)); n != 1 {
				t.Errorf("%d Started events, want 1: a restart mounting the link must not start", n)
			}
			st := pod.Status().ContainerStatuses[0]
			if st.RestartCount != 0 {
				t.Errorf("restart count %d, want 0", st.RestartCount)
			}
			if left := privateMountsLeft(t, h.stateDir); len(left) > 0 {
				t.Errorf("private mounts left after the creates: %q", left)
			}
			if err := pod.Remove(ctx); err != nil {
				t.Errorf("Remove: %v", err)
			}
		})
	}
}

// A container swaps the subPath between a directory, nothing and a link to the host's / without
// end, while another one mounting that subPath is recreated again and again: each create is
// refused or mounts a directory of the volume, never the host. (A directory deleted between
// podlife's open and runc's mount makes runc's mount from the private point fail: refused too,
// with the volumeMount named.)
func TestSubPathSwapRacingCreate(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) {
		c.Backoff = podlife.Backoff{Initial: 20 * time.Millisecond, Max: 50 * time.Millisecond, ResetAfter: time.Hour}
	})
	ctx, cancel := context.WithTimeout(context.Background(), budget(4*time.Minute)) // a loaded host: ~2 s a create
	defer cancel()
	marker := hostMarker(t)
	out := t.TempDir()
	victim := fmt.Sprintf(`if [ -e /s%s ]; then echo escaped >> /out/log; fi; echo run >> /out/log; exit 1`, marker)
	// Random pauses (up to 1 s as a directory, a create's time or more, and 100 ms as the link)
	// vary where in a create the swap lands; scaled with the host's slowness, as a create's time.
	n := timeScale()
	swapper := fmt.Sprintf(`while :; do rm -rf /data/sub; mkdir /data/sub; usleep $((RANDOM %% 100 * %d)); `+
		`rm -rf /data/sub; ln -s / /data/sub; usleep $((RANDOM %% 100 * %d)); done`, 10000*n, 1000*n)
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "swap-race", TerminationGracePeriod: ptr(3 * time.Second),
		Volumes: []podlife.Volume{
			{Name: "data", EmptyDir: &podlife.EmptyDirVolume{}},
			{Name: "out", HostPath: &podlife.HostPathVolume{Path: out, Type: podlife.HostPathDirectory}},
		},
		Containers: []podlife.ContainerSpec{
			// First: the swapper starts once the victim's first create is done (Sequential).
			{Name: "victim", Image: testImage, Command: []string{"/bin/sh", "-c", victim},
				VolumeMounts: []podlife.VolumeMount{{Name: "data", MountPath: "/s", SubPath: "sub"}, {Name: "out", MountPath: "/out"}}},
			{Name: "swapper", Image: testImage, Command: []string{"/bin/sh", "-c", swapper},
				VolumeMounts: []podlife.VolumeMount{{Name: "data", MountPath: "/data"}}},
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Bounded: 30 creates of the victim after the first (each one Created or Failed).
	const attempts = 30
	creates := 0
	sub := pod.Subscribe(ctx)
	for creates < attempts {
		select {
		case e, ok := <-sub:
			if !ok {
				t.Fatalf("after %d creates: %v", creates, ctx.Err())
			}
			if e.Container == "victim" && (e.Reason == reasons.Failed || e.Reason == reasons.Created) {
				creates++
			}
		case <-ctx.Done():
			t.Fatalf("after %d creates: %v", creates, ctx.Err())
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "log"))
	if err != nil {
		t.Fatal(err)
	}
	runs := strings.Count(string(b), "run\n")
	refused, changed := 0, 0
	for _, e := range events(pod, "victim", reasons.Failed) {
		if !strings.Contains(e.Message, "volumeMounts[0].subPath") {
			t.Errorf("create failed for another reason: %s", e.Message)
		}
		if strings.Contains(e.Message, "during the create") {
			changed++ // runc could not mount what podlife opened: it was deleted meanwhile
		} else {
			refused++ // podlife's resolution refused it
		}
	}
	t.Logf("%d creates: %d runs, %d refused by the resolution, %d failed in runc (the directory deleted meanwhile)", creates, runs, refused, changed)
	if strings.Contains(string(b), "escaped") {
		t.Fatalf("the victim saw the host's files through its subPath: %q", b)
	}
	if runs < 2 {
		t.Errorf("no restart of the victim ran: every create was refused, the mounting side of the race was not exercised")
	}
	if err := pod.Remove(ctx); err != nil {
		t.Errorf("Remove: %v", err)
	}
}

// Legitimate subPaths still work: nested and missing (created inside the volume, with the
// volume's mode), through a link that stays in the volume (relative or absolute on the host), on
// an emptyDir, on a hostPath that is itself a link, and one file of a files volume; and no
// private mount point is left while the pod runs.
func TestSubPathLegitimate(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	hostDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(hostDir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hostDir, "real", "f"), []byte("from-host"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(hostDir, "rel")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(hostDir, "real"), filepath.Join(hostDir, "abs")); err != nil {
		t.Fatal(err)
	}
	hostLink := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(hostDir, hostLink); err != nil {
		t.Fatal(err)
	}
	script := `set -e; echo nested > /nested/w; cat /rel/f > /host/from-rel; cat /abs/f > /host/from-abs; ` +
		`echo made > /made/w; cat /host/real/f > /host/from-root; cat /etc/app.conf > /host/from-files; ` +
		`stat -c %A /nested > /host/nested-mode; touch /tmp/ready; exec sleep 1000`
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "subpath-ok", TerminationGracePeriod: ptr(3 * time.Second),
		Volumes: []podlife.Volume{
			{Name: "data", EmptyDir: &podlife.EmptyDirVolume{}},
			{Name: "host", HostPath: &podlife.HostPathVolume{Path: hostLink, Type: podlife.HostPathDirectory}},
			{Name: "cfg", Files: &podlife.FilesVolume{Files: []podlife.File{{Path: "app.conf", Data: []byte("conf")}}}},
		},
		Containers: []podlife.ContainerSpec{{
			Name: "c", Image: testImage, Command: []string{"/bin/sh", "-c", script},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
			VolumeMounts: []podlife.VolumeMount{
				{Name: "data", MountPath: "/nested", SubPath: "a/b/c"},
				{Name: "host", MountPath: "/host"},
				{Name: "host", MountPath: "/rel", SubPath: "rel", ReadOnly: true},
				{Name: "host", MountPath: "/abs", SubPath: "abs"},
				{Name: "host", MountPath: "/made", SubPath: "new/dir"},
				{Name: "cfg", MountPath: "/etc/app.conf", SubPath: "app.conf"},
			},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v (status %+v)", err, pod.Status().ContainerStatuses)
	}
	check := func(path, want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || strings.TrimSpace(string(b)) != want {
			t.Errorf("%s = %q, %v; want %q", path, b, err, want)
		}
	}
	check(filepath.Join(pod.Sandbox().Dir(), "volumes", "data", "a", "b", "c", "w"), "nested")
	check(filepath.Join(hostDir, "from-rel"), "from-host")
	check(filepath.Join(hostDir, "from-abs"), "from-host")
	check(filepath.Join(hostDir, "from-root"), "from-host")
	check(filepath.Join(hostDir, "new", "dir", "w"), "made")
	check(filepath.Join(hostDir, "from-files"), "conf")
	check(filepath.Join(hostDir, "nested-mode"), "drwxrwxrwx") // the emptyDir's mode
	if left := privateMountsLeft(t, h.stateDir); len(left) > 0 {
		t.Errorf("private mounts left once the container is created: %q", left)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Errorf("Remove: %v", err)
	}
}

// A private mount point left by a create that never finished (its process died between the
// mount and the release) is unmounted by the pod's removal, managed or not, and the removal never
// deletes through it: the host directory it showed keeps its files.
func TestSubPathLeftoverMountSwept(t *testing.T) {
	h := newHarness(t)
	for _, managed := range []bool{true, false} {
		name := map[bool]string{true: "managed", false: "unmanaged"}[managed]
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
			defer cancel()
			rt := h.rt
			if !managed {
				rt = h.another(t)
			}
			pod, err := rt.Run(ctx, podlife.PodSpec{
				Name: "leftover-" + name, TerminationGracePeriod: ptr(3 * time.Second),
				Containers: []podlife.ContainerSpec{{Name: "c", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			victim := t.TempDir()
			keep := filepath.Join(victim, "keep")
			if err := os.WriteFile(keep, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			point := filepath.Join(pod.Sandbox().Dir(), "subpaths", "deadbeef", "0")
			if err := os.MkdirAll(point, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount(victim, point, "", syscall.MS_BIND, ""); err != nil {
				t.Fatalf("bind mount: %v", err)
			}
			if managed {
				err = pod.Remove(ctx)
			} else {
				if err := rt.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				err = removePod(ctx, h.rt, pod.Name())
			}
			if err != nil {
				t.Errorf("remove: %v", err)
			}
			if left := privateMountsLeft(t, h.stateDir); len(left) > 0 {
				t.Errorf("private mounts left after the remove: %q", left)
				_ = syscall.Unmount(point, syscall.MNT_DETACH)
			}
			if b, err := os.ReadFile(keep); err != nil || string(b) != "keep" {
				t.Errorf("the host file behind the leftover mount: %q, %v; want it untouched", b, err)
			}
		})
	}
}
