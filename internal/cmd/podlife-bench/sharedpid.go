package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
)

// sharedPIDReport is what a pause costs: the bench pod started and removed with and without
// shareProcessNamespace (the only pods with a pause), iterations alternating, and the shims'
// memory per pod with it.
type sharedPIDReport struct {
	Iterations   int          `json:"iterations"`
	Start        measure.Stat `json:"start"`
	SharedStart  measure.Stat `json:"shared_start"`
	StartCPU     measure.Stat `json:"start_cpu"`
	SharedCPU    measure.Stat `json:"shared_start_cpu"`
	Stop         measure.Stat `json:"stop"`
	SharedStop   measure.Stat `json:"shared_stop"`
	StartExtraMs float64      `json:"start_extra_ms"`
	StopExtraMs  float64      `json:"stop_extra_ms"`
}

// measureSharedPID alternates the bench pod without and with ShareProcessNamespace (one
// warm-up each, not counted).
func measureSharedPID(ctx context.Context, e *measure.Env, n int) (*sharedPIDReport, error) {
	ns := e.NS("sharedpid")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	var start, shared, cpu, sharedCPU, stop, sharedStop []time.Duration
	one := func(name string, share bool) (time.Duration, time.Duration, time.Duration, error) {
		spec := measure.BenchPod(name)
		spec.ShareProcessNamespace = share
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
		d, c, s, err := one(fmt.Sprintf("own-%d", i+1), false)
		if err != nil {
			return nil, err
		}
		ds, cs, ss, err := one(fmt.Sprintf("shared-%d", i+1), true)
		if err != nil {
			return nil, fmt.Errorf("shareProcessNamespace: %w", err)
		}
		if i >= 0 {
			start, cpu, stop = append(start, d), append(cpu, c), append(stop, s)
			shared, sharedCPU, sharedStop = append(shared, ds), append(sharedCPU, cs), append(sharedStop, ss)
		}
	}
	if err := measure.CheckShims(ctx, ns); err != nil {
		return nil, err
	}
	r := &sharedPIDReport{Iterations: n, Start: measure.Summarize(start), SharedStart: measure.Summarize(shared),
		StartCPU: measure.Summarize(cpu), SharedCPU: measure.Summarize(sharedCPU), Stop: measure.Summarize(stop), SharedStop: measure.Summarize(sharedStop)}
	r.StartExtraMs = r.SharedStart.Median - r.Start.Median
	r.StopExtraMs = r.SharedStop.Median - r.Stop.Median
	return r, nil
}

func (r *sharedPIDReport) print(w io.Writer) {
	fmt.Fprintf(w, "\nshareProcessNamespace (a pause): the bench pod with and without it, %d iterations\n\n", r.Iterations)
	fmt.Fprintf(w, "%-22s %10s %10s %10s\n", "", "median ms", "min ms", "max ms")
	row := func(name string, s measure.Stat) {
		fmt.Fprintf(w, "%-22s %10.1f %10.1f %10.1f\n", name, s.Median, s.Min, s.Max)
	}
	row("start", r.Start)
	row("start, shared PID", r.SharedStart)
	row("start CPU", r.StartCPU)
	row("start CPU, shared PID", r.SharedCPU)
	row("remove", r.Stop)
	row("remove, shared PID", r.SharedStop)
	fmt.Fprintf(w, "the pause adds %.1f ms to the start and %.1f ms to the removal (medians)\n", r.StartExtraMs, r.StopExtraMs)
}
