package podlife_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// Dense mode (Config.Shims ShimShared): five 2-container pods started at once share shims, at
// most PodsPerShim pods each (2: three shims), and their logs go through the one shared
// logger. Killing a shim takes down the containers of the pods it serves, which restart (their
// restart policy) in a new shim of the group; the pods of the other shims are untouched. Stopped
// and removed, they leave nothing (the harness's leak checks: containers, shims, shim sockets,
// loggers, host state).
func TestShimSharedDense(t *testing.T) {
	h := newHarness(t, fastBackoff, func(c *podlife.Config) { c.Shims = podlife.ShimShared; c.PodsPerShim = 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const n = 5
	pods := make([]*podlife.Pod, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			pods[i], errs[i] = h.rt.Run(ctx, podlife.PodSpec{Name: fmt.Sprintf("dense-%d", i), TerminationGracePeriod: ptr(time.Second),
				Containers: []podlife.ContainerSpec{
					{Name: "a", Image: testImage, Command: shCmd(`echo up; exec sleep 3600`)},
					{Name: "b", Image: testImage, Command: []string{"sleep", "3600"}},
				}})
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, p := range pods {
			if p != nil {
				_ = p.Remove(ctx)
			}
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Run dense-%d: %v", i, err)
		}
	}
	shims := podlifetest.ShimPIDs(h.ns)
	if len(shims) != 3 {
		t.Fatalf("%d shims for %d pods (PodsPerShim 2), want 3: %v", len(shims), n, shims)
	}
	if l := podlifetest.Processes("--podlife-log-daemon\x00" + h.stateDir + "\x00"); h.cfg.ContainerLogger != "" && len(l) != 1 {
		t.Errorf("shared loggers %v, want one", l)
	}
	for _, p := range pods {
		a, _ := p.Container("a")
		waitLogHas(t, podlife.LogPath(a), "up")
	}

	// A shim dies: the pods it served restart their containers; the others do not.
	victim := slices.Max(shims)
	served := map[int]bool{}
	for i, p := range pods {
		for _, name := range []string{"a", "b"} {
			c, _ := p.Container(name)
			if parentOf(t, taskPID(t, h, c)) == victim {
				served[i] = true
			}
		}
	}
	if len(served) == 0 || len(served) > 2 {
		t.Fatalf("the shim %d serves pods %v, want 1 or 2", victim, served)
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := range pods {
		if !served[i] {
			continue
		}
		for _, name := range []string{"a", "b"} {
			c, _ := pods[i].Container(name)
			for deadline := time.Now().Add(time.Minute); c.Status().RestartCount < 1 || c.Status().State.Running == nil; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("dense-%d/%s not restarted after its shim died: %+v", i, name, c.Status())
				}
			}
		}
	}
	for i, p := range pods {
		if served[i] {
			continue
		}
		for _, name := range []string{"a", "b"} {
			if c, _ := p.Container(name); c.Status().RestartCount != 0 {
				t.Errorf("dense-%d/%s restarted: its shim was not the one killed", i, name)
			}
		}
	}
	if got := len(podlifetest.ShimPIDs(h.ns)); got != 3 {
		t.Errorf("%d shims after the restart, want 3", got)
	}

	for i, p := range pods {
		if err := p.Stop(ctx); err != nil {
			t.Errorf("Stop dense-%d: %v", i, err)
		}
		if err := p.Remove(ctx); err != nil {
			t.Errorf("Remove dense-%d: %v", i, err)
		}
	}
}

// taskPID is the PID of container c's task (its main process).
func taskPID(t *testing.T, h *harness, c *podlife.Container) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(namespaces.WithNamespace(context.Background(), h.ns), 20*time.Second)
	defer cancel()
	ctr, err := env.client.LoadContainer(ctx, c.ID())
	if err != nil {
		t.Fatalf("load container %s: %v", c.ID(), err)
	}
	task, err := ctr.Task(ctx, nil)
	if err != nil {
		t.Fatalf("task of %s: %v", c.ID(), err)
	}
	return int(task.Pid())
}
