package podlife_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
)

// TestContainerdLostDuringRun: containerd is SIGKILLed while Run is in flight (from the first
// container's postStart hook, so the second container's create or start is under way), and
// started again by the test 300 ms later. Run must return within a bounded time (not wait out a
// one-minute cleanup): either the pod runs, or an error that wraps ErrUnavailable and the pod
// is fully removed (the harness's leak check runs at cleanup against the test's containerd).
func TestContainerdLostDuringRun(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	restarted := make(chan struct{})
	kill := hook.HandlerFunc(func(ctx context.Context, _ hook.Target) error {
		own.kill()
		go func() {
			defer close(restarted)
			time.Sleep(300 * time.Millisecond)
			own.start()
		}()
		return nil
	})
	begin := time.Now()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "inflight", TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, PostStart: kill},
			{Name: "b", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
		},
	})
	took := time.Since(begin)
	<-restarted
	t.Logf("Run with containerd lost in flight took %v: err %v", took, err)
	if took > 30*time.Second {
		t.Errorf("Run took %v with containerd back after 300 ms, want it bounded", took)
	}
	if err != nil {
		if !errors.Is(err, podlife.ErrUnavailable) {
			t.Errorf("Run error %v, want it to wrap ErrUnavailable", err)
		}
		if p, perr := h.rt.Pod("inflight"); perr == nil {
			t.Errorf("pod %v still registered after a failed Run", p)
		}
		return
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}
