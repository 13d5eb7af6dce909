package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
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
		if e.Reason == podlife.ReasonBackOff && e.Container == "app" {
			backoffs++
		}
		return backoffs == 2
	})
	st := pod.Status()
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != podlife.ReasonImagePullBackOff {
		t.Errorf("state %+v, want waiting ImagePullBackOff", st.ContainerStatuses[0].State)
	}
	if st.Phase != podlife.PhasePending {
		t.Errorf("phase %s while the image is missing, want Pending", st.Phase)
	}
	if err := reg.Push(namespaces.WithNamespace(ctx, h.ns), env.client, testImage, remote); err != nil {
		t.Fatalf("push: %v", err)
	}
	waitEvent(t, ctx, pod, "app", podlife.ReasonStarted)
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
			if e.Reason == podlife.ReasonBackOff {
				return
			}
		}
	}()
	if err := pod.WaitStarted(wait); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitStarted: %v, want the wait cancelled while the image is missing", err)
	}
	st := pod.Status()
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != podlife.ReasonImagePullBackOff {
		t.Errorf("state %+v, want waiting ImagePullBackOff", st.ContainerStatuses[0].State)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := h.rt.Pod("pull-never-there"); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("pod still registered after Remove: %v", err)
	}
}
