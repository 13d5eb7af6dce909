package main

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/bench/probes"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/probe"
)

// runtimeClassReport compares the built-in crun runtime class with the default (runc), in the
// same run: the bench pod's start, start CPU and removal, iterations alternating; and the CPU
// of exec probes, pods of both classes probed at the same time.
type runtimeClassReport struct {
	Iterations int          `json:"iterations"`
	RuncStart  measure.Stat `json:"runc_start"`
	CrunStart  measure.Stat `json:"crun_start"`
	RuncCPU    measure.Stat `json:"runc_start_cpu"`
	CrunCPU    measure.Stat `json:"crun_start_cpu"`
	RuncStop   measure.Stat `json:"runc_remove"`
	CrunStop   measure.Stat `json:"crun_remove"`
	// StartRatio, CPURatio and StopRatio are crun's medians over runc's.
	StartRatio float64 `json:"start_ratio"`
	CPURatio   float64 `json:"start_cpu_ratio"`
	StopRatio  float64 `json:"remove_ratio"`
	// Probes are the exec-probe measurement's figures, runc first.
	Probes      []classProbes `json:"probes"`
	ProbeSecs   float64       `json:"probe_window_seconds"`
	ProbeRatio  float64       `json:"probe_cpu_ratio"` // crun's CPU per probe run over runc's
	ProbePeriod string        `json:"probe_period"`
}

// classProbes is what the exec probes of one class's pods cost during the window: the CPU of
// the pods' shims and of everything under them (the runtime binary's `exec` runs and the
// probes' processes, reaped by the shim), from /proc/PID/stat. containerd's share, the same
// path for both classes, is not counted.
type classProbes struct {
	Class     string  `json:"class"`
	Pods      int     `json:"pods"`
	Runs      int64   `json:"runs"`
	Failures  int64   `json:"failures"`
	CPUms     float64 `json:"shim_tree_cpu_ms"`
	PerRunMs  float64 `json:"cpu_per_run_ms"`
	CPUPerPod float64 `json:"cpu_percent_per_pod"`
}

// measureRuntimeClass runs the bench pod with and without RuntimeClassName crun (one warm-up
// each, not counted), then probePods pods of each class with an exec readiness probe every
// 100 ms, and measures each class's shim trees over one window.
func measureRuntimeClass(ctx context.Context, e *measure.Env, n, probePods int, window time.Duration) (*runtimeClassReport, error) {
	runcNS, crunNS := e.NS("rc-runc"), e.NS("rc-crun")
	rtRunc, err := e.Runtime(ctx, runcNS, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rtRunc.Close()
	rtCrun, err := e.Runtime(ctx, crunNS, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rtCrun.Close()
	var start, cstart, cpu, ccpu, stop, cstop []time.Duration
	one := func(rt *podlife.Runtime, name, class string) (time.Duration, time.Duration, time.Duration, error) {
		spec := measure.BenchPod(name)
		spec.RuntimeClassName = class
		t0, c0 := time.Now(), measure.CPUTime()
		pod, err := rt.Run(ctx, spec)
		if err != nil {
			return 0, 0, 0, err
		}
		d, c := time.Since(t0), measure.CPUTime()-c0
		t1 := time.Now()
		if err := pod.Remove(ctx); err != nil {
			return 0, 0, 0, err
		}
		return d, c, time.Since(t1), nil
	}
	for i := -1; i < n; i++ {
		d, c, s, err := one(rtRunc, fmt.Sprintf("runc-%d", i+1), "")
		if err != nil {
			return nil, err
		}
		dc, cc, sc, err := one(rtCrun, fmt.Sprintf("crun-%d", i+1), "crun")
		if err != nil {
			return nil, fmt.Errorf("crun: %w", err)
		}
		if i >= 0 {
			start, cpu, stop = append(start, d), append(cpu, c), append(stop, s)
			cstart, ccpu, cstop = append(cstart, dc), append(ccpu, cc), append(cstop, sc)
		}
	}
	r := &runtimeClassReport{Iterations: n, RuncStart: measure.Summarize(start), CrunStart: measure.Summarize(cstart),
		RuncCPU: measure.Summarize(cpu), CrunCPU: measure.Summarize(ccpu), RuncStop: measure.Summarize(stop), CrunStop: measure.Summarize(cstop)}
	r.StartRatio = measure.Ratio(r.CrunStart.Median, r.RuncStart.Median)
	r.CPURatio = measure.Ratio(r.CrunCPU.Median, r.RuncCPU.Median)
	r.StopRatio = measure.Ratio(r.CrunStop.Median, r.RuncStop.Median)
	if probePods > 0 {
		if err := measureClassProbes(ctx, e, r, probePods, window, rtRunc, rtCrun, runcNS, crunNS); err != nil {
			return nil, fmt.Errorf("exec probes: %w", err)
		}
	}
	for _, ns := range []string{runcNS, crunNS} {
		if err := measure.CheckShims(ctx, ns); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// measureClassProbes runs k pods of each class, each with an exec readiness probe (/bin/true)
// every 100 ms, and measures both classes' shim trees over the same window.
func measureClassProbes(ctx context.Context, e *measure.Env, r *runtimeClassReport, k int, window time.Duration, rtRunc, rtCrun *podlife.Runtime, runcNS, crunNS string) error {
	const period = 100 * time.Millisecond
	r.ProbePeriod = period.String()
	type class struct {
		name string
		rt   *podlife.Runtime
		ns   string
		pr   *probes.Switched
		pods []*podlife.Pod
	}
	classes := []*class{{name: "runc", rt: rtRunc, ns: runcNS}, {name: "crun", rt: rtCrun, ns: crunNS}}
	defer func() {
		for _, c := range classes {
			if err := measure.RemoveAll(context.WithoutCancel(ctx), c.pods); err != nil {
				e.Logger.Error("removing probe pods", "err", err)
			}
		}
	}()
	for _, c := range classes {
		c.pr = probes.NewSwitched(probe.Exec("/bin/true"), k)
		for i := range k {
			spec := podlife.PodSpec{Name: fmt.Sprintf("probed-%d", i), Containers: []podlife.ContainerSpec{{
				Name: "app", Image: measure.Image, Command: measure.ContainerCmd, StopSignal: syscall.SIGKILL,
				ReadinessProbe: &probe.Spec{Prober: c.pr.Prober(i), Period: period, Timeout: time.Second},
			}}}
			if c.name == "crun" {
				spec.RuntimeClassName = "crun"
			}
			p, err := c.rt.Run(ctx, spec)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			c.pods = append(c.pods, p)
		}
	}
	for _, c := range classes {
		for _, p := range c.pods {
			if err := p.WaitReady(ctx); err != nil {
				return fmt.Errorf("%s pod %s ready: %w", c.name, p.Name(), err)
			}
		}
	}
	time.Sleep(2 * time.Second) // let the starts' own work settle
	type mark struct {
		runs, failures int64
		cpu            time.Duration
	}
	at := func(c *class) mark {
		return mark{c.pr.Runs.Load(), c.pr.Failures.Load(), measure.TreeCPU(podlifetest.ShimPIDs(c.ns))}
	}
	m0 := []mark{at(classes[0]), at(classes[1])}
	w0 := time.Now()
	select {
	case <-time.After(window):
	case <-ctx.Done():
		return ctx.Err()
	}
	m1 := []mark{at(classes[0]), at(classes[1])}
	secs := time.Since(w0).Seconds()
	r.ProbeSecs = measure.Round1(secs)
	for i, c := range classes {
		cp := classProbes{Class: c.name, Pods: k, Runs: m1[i].runs - m0[i].runs, Failures: m1[i].failures - m0[i].failures}
		d := m1[i].cpu - m0[i].cpu
		cp.CPUms = float64(d.Milliseconds())
		if cp.Runs > 0 {
			cp.PerRunMs = measure.Round1(cp.CPUms / float64(cp.Runs))
		}
		cp.CPUPerPod = measure.Round1(measure.Percent(d, secs) / float64(k))
		r.Probes = append(r.Probes, cp)
	}
	r.ProbeRatio = measure.Ratio(r.Probes[1].PerRunMs, r.Probes[0].PerRunMs)
	return nil
}

func (r *runtimeClassReport) print(w io.Writer) {
	fmt.Fprintf(w, "\nruntimeClassName crun against the default (runc): the bench pod, %d iterations\n\n", r.Iterations)
	fmt.Fprintf(w, "%-18s %10s %10s %10s %8s\n", "", "median ms", "min ms", "max ms", "ratio")
	row := func(name string, s measure.Stat, ratio float64) {
		rs := ""
		if ratio > 0 {
			rs = fmt.Sprintf("%.2fx", ratio)
		}
		fmt.Fprintf(w, "%-18s %10.1f %10.1f %10.1f %8s\n", name, s.Median, s.Min, s.Max, rs)
	}
	row("start, runc", r.RuncStart, 0)
	row("start, crun", r.CrunStart, r.StartRatio)
	row("start CPU, runc", r.RuncCPU, 0)
	row("start CPU, crun", r.CrunCPU, r.CPURatio)
	row("remove, runc", r.RuncStop, 0)
	row("remove, crun", r.CrunStop, r.StopRatio)
	if len(r.Probes) == 0 {
		return
	}
	fmt.Fprintf(w, "\nexec probes (/bin/true every %s), both classes at once, %.1f s: CPU of the pods' shims and what runs under them\n\n", r.ProbePeriod, r.ProbeSecs)
	fmt.Fprintf(w, "%-6s %5s %7s %9s %10s %11s %12s\n", "class", "pods", "runs", "failures", "CPU ms", "ms per run", "% CPU / pod")
	for _, p := range r.Probes {
		fmt.Fprintf(w, "%-6s %5d %7d %9d %10.0f %11.1f %12.1f\n", p.Class, p.Pods, p.Runs, p.Failures, p.CPUms, p.PerRunMs, p.CPUPerPod)
	}
	fmt.Fprintf(w, "crun/runc CPU per exec probe: %.2fx\n", r.ProbeRatio)
}
