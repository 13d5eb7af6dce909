package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

// With Config.ImagePullBackOff, a pod whose image is not in the registry yet waits in
// ErrImagePull / ImagePullBackOff, its pulls retried under back-off, and starts once the image
// is pushed; the events come in the kubelet's order.
func TestImagePullBackOff(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) {
		c.ImagePullBackOff = &podlife.Backoff{Initial: 200 * time.Millisecond, Max: time.Second}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg, err := podlifetest.StartRegistry(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	defer reg.Close()
	remote := reg.Addr() + "/podlife/late:1"
	h.keepImages = append(h.keepImages, remote)

	pod, err := h.rt.Start(ctx, simplePod("pull-late", remote, podlife.PullIfNotPresent))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	// Two failed pulls, each followed by its back-off; then the image is pushed.
	backoffs := 0
	waitEventMatch(t, ctx, pod, "a second BackOff", func(e podlife.Event) bool {
		if e.Reason == reasons.BackOff && e.Container == "app" {
			backoffs++
		}
		return backoffs == 2
	})
	st := pod.Status()
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasons.ImagePullBackOff {
		t.Errorf("state %+v, want waiting ImagePullBackOff", st.ContainerStatuses[0].State)
	}
	if st.Phase != podlife.PhasePending {
		t.Errorf("phase %s while the image is missing, want Pending", st.Phase)
	}
	if err := reg.Push(namespaces.WithNamespace(ctx, h.ns), env.client, testImage, remote); err != nil {
		t.Fatalf("push: %v", err)
	}
	waitEvent(t, ctx, pod, "app", reasons.Started)
	// The kubelet's sequence for each failed attempt, then the successful one.
	var got []string
	for _, e := range pod.Events() {
		if e.Container == "app" {
			got = append(got, string(e.Reason)+"/"+string(e.Type))
		}
	}
	want := []string{"Pulling/Normal", "Failed/Warning", "Failed/Warning", "BackOff/Normal", "Failed/Warning"}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Fatalf("events %v, want them to begin with %v", got, want)
		}
	}
	if n := len(got); n < 4 || fmt.Sprint(got[n-4:]) != "[Pulling/Normal Pulled/Normal Created/Normal Started/Normal]" {
		t.Errorf("events %v, want them to end with Pulling Pulled Created Started", got)
	}
}

// Run's context ends its wait for an image under back-off, not the pod: the pod goes on
// waiting in ImagePullBackOff, and Remove takes it away with nothing left (the harness checks).
func TestImagePullBackOffOutlivesRunWait(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) {
		c.ImagePullBackOff = &podlife.Backoff{Initial: 100 * time.Millisecond, Max: 200 * time.Millisecond}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wait, cancelWait := context.WithCancel(ctx)
	pod, err := h.rt.Start(ctx, simplePod("pull-never-there", "podlife.test/absent:1", podlife.PullNever))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	go func() {
		defer cancelWait()
		for e := range pod.Subscribe(wait) {
			if e.Reason == reasons.BackOff {
				return
			}
		}
	}()
	if err := pod.WaitStarted(wait); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitStarted: %v, want the wait cancelled while the image is missing", err)
	}
	st := pod.Status()
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasons.ImagePullBackOff {
		t.Errorf("state %+v, want waiting ImagePullBackOff", st.ContainerStatuses[0].State)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := h.rt.Pod("pull-never-there"); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("pod still registered after Remove: %v", err)
	}
}

// An image volume whose image is not in the registry yet, under Config.ImagePullBackOff: the
// container that mounts it waits in ImagePullBackOff (the pod Pending, its pulls retried under
// back-off, the kubelet's events on the pod), and once the image is pushed the pod starts and
// the container reads the image's files. Without the back-off the pod fails at once (see
// TestImageVolumeNeverMissing).
func TestImageVolumePullBackOff(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) {
		c.ImagePullBackOff = &podlife.Backoff{Initial: 200 * time.Millisecond, Max: time.Second}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg, err := podlifetest.StartRegistry(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	defer reg.Close()
	remote := reg.Addr() + "/podlife/late-volume:1"
	h.keepImages = append(h.keepImages, remote)
	spec := simplePod("imgvol-late", testImage, podlife.PullNever)
	spec.Volumes = []podlife.Volume{{Name: "img", Image: &podlife.ImageVolume{Reference: remote, PullPolicy: podlife.PullIfNotPresent}}}
	spec.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "img", MountPath: "/img"}}
	spec.Containers = append(spec.Containers, podlife.ContainerSpec{Name: "other", Image: testImage, ImagePullPolicy: podlife.PullNever,
		Command: []string{"/bin/sh", "-c", loopForever}})

	pod, err := h.rt.Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	backoffs := 0
	waitEventMatch(t, ctx, pod, "a second BackOff", func(e podlife.Event) bool {
		if e.Reason == reasons.BackOff && e.Container == "" {
			backoffs++
		}
		return backoffs == 2
	})
	st := pod.Status()
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasons.ImagePullBackOff || !strings.Contains(w.Message, `volume "img"`) {
		t.Errorf("app's state %+v, want waiting ImagePullBackOff naming the volume", st.ContainerStatuses[0].State)
	}
	if w := st.ContainerStatuses[1].State.Waiting; w == nil || w.Reason != reasons.ContainerCreating {
		t.Errorf("other's state %+v, want waiting ContainerCreating (it does not mount the volume)", st.ContainerStatuses[1].State)
	}
	if st.Phase != podlife.PhasePending {
		t.Errorf("phase %s while the volume's image is missing, want Pending", st.Phase)
	}
	if err := reg.Push(namespaces.WithNamespace(ctx, h.ns), env.client, testImage, remote); err != nil {
		t.Fatalf("push: %v", err)
	}
	if err := pod.WaitStarted(ctx); err != nil {
		t.Fatalf("WaitStarted: %v", err)
	}
	if out := execIn(t, ctx, pod, "app", `cmp /img/bin/busybox /bin/busybox && echo same`); out != "same\n" {
		t.Errorf("reading the image volume: %q, want the image's busybox", out)
	}
	var got []podlife.Reason
	for _, e := range pod.Events() {
		if e.Container == "" && (e.Reason == reasons.BackOff || e.Reason == reasons.Failed || e.Reason == reasons.Pulled) {
			got = append(got, e.Reason)
		}
	}
	if len(got) < 5 || fmt.Sprint(got[:4]) != "[Failed Failed BackOff Failed]" || got[len(got)-1] != reasons.Pulled {
		t.Errorf("pod events %v, want the kubelet's Failed Failed BackOff Failed ... Pulled", got)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}
