package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// runAsNonRoot with a root user is the kubelet's CreateContainerConfigError for that container
// alone (upstream e2e "should not run with an explicit root user ID" and "should not run without
// a specified user ID"): the pod is admitted, the container stays Waiting with the kubelet's
// message and a Failed event, and the pod's other containers run. podlife used to refuse the
// whole pod (runAsUser 0 at validation, an image's root user at create), so nothing ran.
func TestRunAsNonRootRootUserPerContainer(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nonRoot := func(uid *int64) *podlife.SecurityContext {
		return &podlife.SecurityContext{RunAsNonRoot: ptr(true), RunAsUser: uid}
	}
	name := "nonroot-mixed"
	who := func(c string) string { return fmt.Sprintf("(pod: %q, container: %s)", name+"_default", c) }
	wantMsg := map[string]string{
		"explicit-root": "container's runAsUser breaks non-root policy " + who("explicit-root"),
		"image-root":    "container has runAsNonRoot and image will run as root " + who("image-root"),
	}
	// The refused containers come first: the default Sequential start goes past them.
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name, Containers: []podlife.ContainerSpec{
		{Name: "explicit-root", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, SecurityContext: nonRoot(ptr[int64](0))},
		{Name: "image-root", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, SecurityContext: nonRoot(nil)},
		{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, SecurityContext: nonRoot(ptr[int64](1000))},
	}})
	if pod == nil {
		t.Fatalf("Run: %v; want the pod admitted, as the kubelet does", err)
	}
	defer func() { _ = pod.Remove(context.Background()) }()
	var se *podlife.StartError
	if !errors.Is(err, podlife.ErrCreateContainerConfig) || !errors.As(err, &se) || se.Step != podlife.StepCreate || se.Err.Error() != wantMsg[se.Container] {
		t.Errorf("Run: %v, want a create StartError wrapping ErrCreateContainerConfig with the kubelet's message", err)
	}
	st, err := pod.WaitFor(ctx, func(st podlife.PodStatus) bool {
		for _, c := range st.ContainerStatuses {
			if c.Name == "app" {
				return c.State.Running != nil
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the other container did not run: %v (%+v)", err, st.ContainerStatuses)
	}
	for _, c := range st.ContainerStatuses {
		want, refused := wantMsg[c.Name]
		if !refused {
			continue
		}
		if w := c.State.Waiting; w == nil || w.Reason != reasons.CreateContainerConfigError || w.Message != want {
			t.Errorf("%s: state %+v, want Waiting %s %q", c.Name, c.State, reasons.CreateContainerConfigError, want)
		}
		if c.RestartCount != 0 || c.Started || c.ContainerID != "" {
			t.Errorf("%s: restarts %d, started %v, id %q: it must never have run", c.Name, c.RestartCount, c.Started, c.ContainerID)
		}
	}
	if st.Phase != podlife.PhasePending {
		t.Errorf("phase %s, want Pending (containers waiting), as the kubelet's getPhase", st.Phase)
	}
	if res, err := execOutput(ctx, pod, "app", []string{"id", "-u"}); err != nil || strings.TrimSpace(string(res.Output)) != "1000" {
		t.Errorf("app: id -u %q (%v), want 1000", res.Output, err)
	}
	for ctr, msg := range wantMsg {
		found := false
		for _, e := range pod.Events() {
			if e.Container == ctr && e.Type == podlife.EventWarning && e.Reason == reasons.Failed && e.Message == "Error: "+msg {
				found = true
			}
		}
		if !found {
			t.Errorf("no Warning Failed event %q for %s: %v", "Error: "+msg, ctr, pod.Events())
		}
	}
}

// An init container refused for runAsNonRoot holds the pod in its init phase, as on a kubelet:
// the pod stays Pending, the init container Waiting CreateContainerConfigError, the app
// containers Waiting PodInitializing, and nothing runs.
func TestRunAsNonRootRootInitContainer(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := "nonroot-init"
	want := fmt.Sprintf("container's runAsUser breaks non-root policy (pod: %q, container: init)", name+"_default")
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name,
		SecurityContext: &podlife.PodSecurityContext{RunAsNonRoot: ptr(true)},
		InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/true"},
			SecurityContext: &podlife.SecurityContext{RunAsUser: ptr[int64](0)}}},
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			SecurityContext: &podlife.SecurityContext{RunAsUser: ptr[int64](1000)}}},
	})
	if pod == nil {
		t.Fatalf("Run: %v; want the pod admitted, as the kubelet does", err)
	}
	defer func() { _ = pod.Remove(context.Background()) }()
	if !errors.Is(err, podlife.ErrCreateContainerConfig) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Run: %v, want ErrCreateContainerConfig %q", err, want)
	}
	st := pod.Status()
	if st.Phase != podlife.PhasePending {
		t.Errorf("phase %s, want Pending", st.Phase)
	}
	if w := st.InitContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasons.CreateContainerConfigError || w.Message != want {
		t.Errorf("init: state %+v, want Waiting CreateContainerConfigError %q", st.InitContainerStatuses[0].State, want)
	}
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasons.PodInitializing {
		t.Errorf("app: state %+v, want Waiting PodInitializing (it must not start)", st.ContainerStatuses[0].State)
	}
}
