package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// mountinfoAt returns the fields of the /proc/self/mountinfo line of the mount point at path,
// nil if nothing is mounted there.
func mountinfoAt(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var last []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == path {
			last = f
		}
	}
	return last
}

// An image volume (the test image) mounted at /img, seen from inside the container: the image's
// files are there (its busybox is byte for byte the container's own), the mount is read-only
// and a write to it fails, even with a subPath. On the host, the volume is a mount of
// containerd's snapshot (no copy); after Remove nothing is mounted there and no view snapshot
// is left (the harness's leak checks).
func TestImageVolume(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := simplePod("imgvol", testImage, podlife.PullNever)
	spec.Volumes = []podlife.Volume{{Name: "img", Image: &podlife.ImageVolume{Reference: testImage, PullPolicy: podlife.PullNever}}}
	spec.Containers[0].VolumeMounts = []podlife.VolumeMount{
		{Name: "img", MountPath: "/img"},
		{Name: "img", MountPath: "/etc-of-img", SubPath: "etc"},
	}
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := execIn(t, ctx, pod, "app", `cmp /img/bin/busybox /bin/busybox && echo same; grep -c ^root: /etc-of-img/passwd`)
	if out != "same\n1\n" {
		t.Errorf("reading the image volume: %q, want the image's busybox and /etc/passwd", out)
	}
	for _, target := range []string{"/img", "/etc-of-img"} {
		opts := execIn(t, ctx, pod, "app", `awk '$5 == "`+target+`" { print $6 }' /proc/self/mountinfo`)
		if !strings.HasPrefix(opts, "ro,") && opts != "ro\n" {
			t.Errorf("%s is mounted %q, want ro", target, opts)
		}
		if got := execIn(t, ctx, pod, "app", `touch `+target+`/written 2>&1; echo " code $?"`); !strings.Contains(got, "Read-only file system") {
			t.Errorf("a write to %s: %q, want it refused (read-only)", target, got)
		}
	}
	dir := filepath.Join(pod.Sandbox().Dir(), "volumes", "img")
	mi := mountinfoAt(t, dir)
	if mi == nil {
		t.Fatalf("nothing mounted at %s: the image volume should be a mount of its snapshot", dir)
	}
	if !strings.Contains(mi[3], "snapshots") && !strings.Contains(strings.Join(mi, " "), "lowerdir=") {
		t.Errorf("%s mounts %q, want containerd's snapshot", dir, mi)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if mi := mountinfoAt(t, dir); mi != nil {
		t.Errorf("still mounted at %s after Remove: %q", dir, mi)
	}
}

// An image volume of a two-layer image (busybox, then a layer with /marker): containerd's view
// is an overlay of the two, mounted read-only; the container reads the upper layer's file and
// the lower layer's busybox through it, and cannot write it. Nothing is left after Remove.
func TestImageVolumeLayers(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ref = "podlife.test/imgvol-layers:1"
	marker := "marker " + env.runID + "\n"
	var archive bytes.Buffer
	if err := podlifetest.BusyboxArchive(&archive, ref, podlifetest.WithFile("marker", []byte(marker))); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.ImportImage(ctx, &archive); err != nil {
		t.Fatal(err)
	}
	h.keepImages = append(h.keepImages, ref)
	spec := simplePod("imgvol-layers", testImage, podlife.PullNever)
	spec.Volumes = []podlife.Volume{{Name: "data", Image: &podlife.ImageVolume{Reference: ref}}} // IfNotPresent: tagged
	spec.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "data", MountPath: "/data", ReadOnly: false}}
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := execIn(t, ctx, pod, "app", `cat /data/marker; cmp /data/bin/busybox /bin/busybox && echo same; test -e /marker || echo "not in the rootfs"`); got != marker+"same\nnot in the rootfs\n" {
		t.Errorf("reading the image volume: %q", got)
	}
	if got := execIn(t, ctx, pod, "app", `{ echo x >> /data/marker; } 2>&1; echo " code $?"; cat /data/marker`); !strings.Contains(got, "Read-only file system") || !strings.HasSuffix(got, marker) {
		t.Errorf("a write to the image volume: %q, want it refused and the file unchanged", got)
	}
	dir := filepath.Join(pod.Sandbox().Dir(), "volumes", "data")
	if mi := mountinfoAt(t, dir); mi == nil || !strings.Contains(strings.Join(mi, " "), " overlay ") {
		t.Errorf("%s mounts %q, want an overlay of the image's layers", dir, mi)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// An image volume whose image is missing under pull policy Never fails the start, naming the
// volume and the image; nothing is left (the harness's leak checks).
func TestImageVolumeNeverMissing(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	spec := simplePod("imgvol-never", testImage, podlife.PullNever)
	spec.Volumes = []podlife.Volume{{Name: "data", Image: &podlife.ImageVolume{Reference: "podlife.test/absent:1", PullPolicy: podlife.PullNever}}}
	spec.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "data", MountPath: "/data"}}
	_, err := h.rt.Run(ctx, spec)
	if !errors.Is(err, podlife.ErrImageNeverPull) {
		t.Fatalf("Run: %v, want ErrImageNeverPull", err)
	}
	if !strings.Contains(err.Error(), `volume "data"`) || !strings.Contains(err.Error(), "podlife.test/absent:1") {
		t.Errorf("error %q should name the volume and the image", err)
	}
}

// A pod with an image volume left without a manager (its Runtime closed) is removed by
// Pod.Remove from another Runtime: the volume's mount and its view snapshot go too (the
// harness's leak checks).
func TestImageVolumeOrphanRemoved(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	other := h.another(t)
	spec := simplePod("imgvol-orphan", testImage, podlife.PullNever)
	spec.Volumes = []podlife.Volume{{Name: "img", Image: &podlife.ImageVolume{Reference: testImage}}}
	spec.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "img", MountPath: "/img"}}
	pod, err := other.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	dir := filepath.Join(pod.Sandbox().Dir(), "volumes", "img")
	if err := other.Close(); err != nil { // the pod is left without a manager
		t.Fatal(err)
	}
	if err := removePod(ctx, h.rt, spec.Name, podlife.WithGracePeriod(0)); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
	if mi := mountinfoAt(t, dir); mi != nil {
		t.Errorf("still mounted at %s after Pod.Remove: %q", dir, mi)
	}
}
