package podlife_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// TestStopManyAtOnce: pods whose processes ignore SIGTERM, stopped at once by one Runtime, all
// end in about one grace period (each waits its own grace period before the SIGKILL; no lock
// held across a grace period makes them wait on one another), and a second Stop of a pod whose
// stop is in progress joins it: it returns with the first, without a grace period of its own,
// and the container gets one Killing event (issue 18 item 5).
func TestStopManyAtOnce(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	const n = 8
	grace := 3 * time.Second
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pods := make([]*podlife.Pod, n)
	for i := range pods {
		spec := podlife.PodSpec{
			Name: fmt.Sprintf("stubborn-%d", i), TerminationGracePeriod: &grace,
			Containers: []podlife.ContainerSpec{{
				Name: "c", Image: testImage,
				Command: []string{"/bin/sh", "-c", `trap '' TERM; touch /tmp/trapped; while :; do sleep 0.1; done`},
				// Ready once the shell ignores SIGTERM: a Stop right after the start (Running)
				// could reach it before its trap (ci22: one of eight exited at once).
				ReadinessProbe: &probe.Spec{Prober: probe.Exec("test", "-e", "/tmp/trapped"), Period: time.Second, Timeout: budget(5 * time.Second), FailureThreshold: 1},
			}},
		}
		pod, err := h.rt.Run(ctx, spec)
		if err != nil {
			t.Fatalf("run %s: %v", spec.Name, err)
		}
		pods[i] = pod
	}
	for _, pod := range pods {
		if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			return len(s.ContainerStatuses) == 1 && s.ContainerStatuses[0].Ready
		}); err != nil {
			t.Fatalf("%s never ran with its trap: %v", pod.Name(), err)
		}
	}

	began := time.Now()
	took := make([]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, pod := range pods {
		wg.Go(func() {
			errs[i] = pod.Stop(ctx)
			took[i] = time.Since(began)
		})
	}
	// A second Stop of pods[0] once its stop has signalled the container: it joins that stop.
	// It asks for no grace period: a stop of its own would kill at once and return early.
	killing := func(pod *podlife.Pod) int {
		k := 0
		for _, e := range pod.Events() {
			if e.Reason == reasons.Killing {
				k++
			}
		}
		return k
	}
	for killing(pods[0]) == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("no Killing event for %s: %v", pods[0].Name(), pods[0].Events())
		case <-time.After(10 * time.Millisecond): // polls the events; nothing waits on time
		}
	}
	second := time.Now()
	secondErr := pods[0].Stop(ctx, podlife.WithGracePeriod(0))
	secondTook := time.Since(second)
	wg.Wait()
	total := time.Since(began)
	if secondErr != nil {
		t.Errorf("second Stop of %s: %v", pods[0].Name(), secondErr)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("Stop %s: %v", pods[i].Name(), err)
		}
	}
	// Each stop waits its grace period before the SIGKILL (the processes ignore SIGTERM); all
	// of them together take about one grace period, well below n of them.
	bound := 2*grace + 6*time.Second
	for i, d := range took {
		if d < grace-100*time.Millisecond {
			t.Errorf("%s stopped after %v, before its grace period %v", pods[i].Name(), d, grace)
		}
	}
	if total > bound {
		t.Errorf("%d pods stopped at once took %v, want at most %v (%d grace periods: %v)", n, total, bound, n, time.Duration(n)*grace)
	}
	// The second Stop began after the first had signalled: it ends with the first (after the
	// first's grace period, not at once), and no grace period after its own call.
	if end := second.Add(secondTook).Sub(began); end < grace-100*time.Millisecond || end > took[0]+time.Second || secondTook > grace+2*time.Second {
		t.Errorf("second Stop returned %v after the stops began (took %v); the first returned after %v: it did not join the stop in progress", end, secondTook, took[0])
	}
	for _, pod := range pods {
		if k := killing(pod); k != 1 {
			t.Errorf("%s: %d Killing events, want 1: %v", pod.Name(), k, pod.Events())
		}
		c := pod.Status().ContainerStatuses[0]
		if c.State.Terminated == nil || c.State.Terminated.ExitCode != 137 {
			t.Errorf("%s: %+v, want killed (137) after its grace period", pod.Name(), c.State)
		}
	}
	t.Logf("%d pods (grace %v, SIGTERM ignored) stopped at once in %v; slowest %v; a joined second Stop returned after %v", n, grace, total, slices.Max(took), secondTook)
}
