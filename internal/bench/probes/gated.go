package probes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/podwatch"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/podlife/startpolicy"
	"github.com/podlife/podlife/probe"
)

// gatedFastPeriod is the readiness probe's FastPeriod in the "fast" variant.
const gatedFastPeriod = 50 * time.Millisecond

// gatedPod is a "proxy" that becomes ready 0.5 s after it started (it creates a file its exec
// readiness probe looks for) and an "app" that depends on the proxy being ready, under
// startpolicy.DependencyOrder. dir is bind-mounted at /shared, so the host sees when the file
// was created.
func gatedPod(name, dir string, fast bool) podlife.PodSpec {
	ready := &probe.Spec{Prober: probe.Exec("/bin/test", "-e", "/shared/ready"), Period: time.Second}
	if fast {
		ready.FastPeriod = gatedFastPeriod
	}
	mounts := []podlife.VolumeMount{{Name: "shared", MountPath: "/shared"}}
	return podlife.PodSpec{Name: name, StartPolicy: startpolicy.DependencyOrder(),
		Volumes: []podlife.Volume{{Name: "shared", HostPath: &podlife.HostPathVolume{Path: dir, Type: podlife.HostPathDirectoryOrCreate}}},
		Containers: []podlife.ContainerSpec{
			{Name: "proxy", Image: measure.Image, Command: []string{"/bin/sh", "-c", "sleep 0.5 && touch /shared/ready && exec sleep 3600"},
				StopSignal: syscall.SIGKILL, VolumeMounts: mounts, ReadinessProbe: ready},
			{Name: "app", Image: measure.Image, Command: measure.ContainerCmd, StopSignal: syscall.SIGKILL,
				DependsOn: []startpolicy.Dependency{{Container: "proxy", Condition: startpolicy.ContainerReady}}},
		}}
}

// gatedTimes is one gated start, each phase in its own distribution.
type gatedTimes struct {
	// Detect is from the file's creation (its mtime, at the kernel's timestamp granularity) to
	// podlife marking the proxy ready: what the probe period costs.
	Detect measure.Stat `json:"detect"`
	// Gate is from the proxy marked ready to the app's Started event: the dependency's wake-up and
	// Task.Start.
	Gate measure.Stat `json:"gate"`
	// Total is from the file's creation to the app's Started event.
	Total measure.Stat `json:"total"`
}

// GatedReport is the dependency-gated start's figures.
type GatedReport struct {
	Iterations int        `json:"iterations"`
	Fast       gatedTimes `json:"fast_period"` // readiness Period 1s, FastPeriod 50ms
	Slow       gatedTimes `json:"period_only"` // readiness Period 1s
}

// MeasureGated starts the gated pod n times with FastPeriod and n times without, alternating
// (one warm-up each, not counted).
func MeasureGated(ctx context.Context, e *measure.Env, n int) (*GatedReport, error) {
	ns := e.NS("gated")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	var d [2][3][]time.Duration // [slow, fast][detect, gate, total]
	for i := -1; i < n; i++ {
		for v, fast := range []bool{false, true} {
			name := fmt.Sprintf("gated-%d-%d", i+1, v)
			detect, gate, err := gatedStart(ctx, e, rt, name, fast)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if i >= 0 {
				d[v][0], d[v][1], d[v][2] = append(d[v][0], detect), append(d[v][1], gate), append(d[v][2], detect+gate)
			}
		}
	}
	if err := measure.CheckShims(ctx, ns); err != nil {
		return nil, err
	}
	times := func(v int) gatedTimes {
		return gatedTimes{Detect: measure.Summarize(d[v][0]), Gate: measure.Summarize(d[v][1]), Total: measure.Summarize(d[v][2])}
	}
	return &GatedReport{Iterations: n, Slow: times(0), Fast: times(1)}, nil
}

// gatedStart runs one gated pod, removes it, and returns its detect and gate times.
func gatedStart(ctx context.Context, e *measure.Env, rt *podlife.Runtime, name string, fast bool) (detect, gate time.Duration, err error) {
	dir := filepath.Join(e.Dir, name)
	pod, runErr, err := podwatch.Run(ctx, rt, gatedPod(name, dir, fast))
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if rerr := pod.Remove(context.WithoutCancel(ctx)); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove: %w", rerr))
		}
	}()
	readyAt := make(chan time.Time, 1)
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	go func() {
		var at time.Time
		_, _ = pod.WaitFor(wctx, func(st podlife.PodStatus) bool {
			if len(st.ContainerStatuses) > 0 && st.ContainerStatuses[0].Ready {
				at = time.Now()
				return true
			}
			return false
		})
		readyAt <- at
	}()
	if err := <-runErr; err != nil {
		return 0, 0, err
	}
	ready := <-readyAt
	if ready.IsZero() {
		return 0, 0, fmt.Errorf("proxy never ready: %w", wctx.Err())
	}
	var started time.Time
	for _, ev := range pod.Events() {
		if ev.Container == "app" && ev.Reason == reasons.Started {
			started = ev.Time
		}
	}
	if started.IsZero() {
		return 0, 0, fmt.Errorf("no Started event for app: %v", pod.Events())
	}
	fi, err := os.Stat(filepath.Join(dir, "ready"))
	if err != nil {
		return 0, 0, err
	}
	return ready.Sub(fi.ModTime()), started.Sub(ready), nil
}

// Print writes the gated start's table to w.
func (r *GatedReport) Print(w io.Writer) {
	fmt.Fprintf(w, "\ndependency-gated start: app DependsOn proxy Ready (exec readiness probe, Period 1s), DependencyOrder, %d iterations\n", r.Iterations)
	fmt.Fprintf(w, "%-28s %10s %10s %10s\n", "", "median ms", "min ms", "max ms")
	row := func(name string, s measure.Stat) {
		fmt.Fprintf(w, "%-28s %10.1f %10.1f %10.1f\n", name, s.Median, s.Min, s.Max)
	}
	for _, v := range []struct {
		name string
		t    gatedTimes
	}{{"Period 1s", r.Slow}, {fmt.Sprintf("FastPeriod %v", gatedFastPeriod), r.Fast}} {
		row(v.name+": file -> ready", v.t.Detect)
		row(v.name+": ready -> app", v.t.Gate)
		row(v.name+": file -> app", v.t.Total)
	}
}
