package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// usageReport is the CPU cost of sampling pods' usage, what `podlife top`, the metrics
// collector and podlife-node's stats APIs do at each scrape: pod by pod (Pod.Usage), and all
// the pods at once (Runtime.Usage, what the collector and podlife-node use).
type usageReport struct {
	Pods   int `json:"pods"`
	Rounds int `json:"rounds"`
	// PerPod samples each pod with Pod.Usage; AllPods samples them all with Runtime.Usage.
	PerPod  usageCost `json:"pod_usage"`
	AllPods usageCost `json:"runtime_usage"`
}

// usageCost is the CPU one pod's sample costs, in milliseconds: this process, containerd, the
// pods' shims (and anything under them), and their sum.
type usageCost struct {
	ProcessMs    float64 `json:"process_ms_per_sample"`
	ContainerdMs float64 `json:"containerd_ms_per_sample"`
	ShimsMs      float64 `json:"shims_ms_per_sample"`
	TotalMs      float64 `json:"total_ms_per_sample"`
	WallMs       float64 `json:"wall_ms_per_sample"`
	// Percent100At10s is the share of one core that sampling 100 pods every 10 s costs, at
	// TotalMs a sample.
	Percent100At10s float64 `json:"percent_of_a_core_100_pods_every_10s"`
}

// measureUsage runs k 2-container pods (sleeping) and samples each of them rounds times in a
// row with Pod.Usage, then all of them rounds times with Runtime.Usage, reading the CPU time
// of this process, containerd and the shims around each.
func measureUsage(ctx context.Context, e *measure.Env, k, rounds int) (*usageReport, error) {
	ns := e.NS("usage")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	var pods []*podlife.Pod
	defer func() {
		if err := measure.RemoveAll(context.WithoutCancel(ctx), pods); err != nil {
			e.Logger.Error("removing usage pods", "err", err)
		}
	}()
	for i := range k {
		p, err := rt.Run(ctx, measure.BenchPod(fmt.Sprintf("usage-%d", i)))
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	for _, p := range pods {
		if err := p.WaitStarted(ctx); err != nil {
			return nil, fmt.Errorf("pod %s: %w", p.Name(), err)
		}
		if u, err := p.Usage(ctx); err != nil || len(u.Containers) != 2 { // also warms the connection
			return nil, fmt.Errorf("pod %s: usage %+v: %v", p.Name(), u, err)
		}
	}
	time.Sleep(2 * time.Second) // let the start's own work settle
	ctrdPID := e.Ctrd.Daemon.PID()
	shims := podlifetest.ShimPIDs(ns)
	sample := func(round func() error) (usageCost, error) {
		p0, c0, s0, w0 := measure.ProcessCPU(), measure.PIDCPU(ctrdPID), measure.TreeCPU(shims), time.Now()
		for range rounds {
			if err := round(); err != nil {
				return usageCost{}, err
			}
		}
		n := float64(k * rounds)
		ms := func(d time.Duration) float64 { return measure.Round2(float64(d) / float64(time.Millisecond) / n) }
		c := usageCost{WallMs: ms(time.Since(w0)),
			ProcessMs: ms(measure.ProcessCPU() - p0), ContainerdMs: ms(measure.PIDCPU(ctrdPID) - c0), ShimsMs: ms(measure.TreeCPU(shims) - s0)}
		c.TotalMs = measure.Round2(c.ProcessMs + c.ContainerdMs + c.ShimsMs)
		c.Percent100At10s = measure.Round2(c.TotalMs * 100 / 10000 * 100)
		return c, nil
	}
	rep := &usageReport{Pods: k, Rounds: rounds}
	if rep.PerPod, err = sample(func() error {
		for _, p := range pods {
			if _, err := p.Usage(ctx); err != nil {
				return fmt.Errorf("pod %s: usage: %w", p.Name(), err)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if rep.AllPods, err = sample(func() error {
		all, err := rt.Usage(ctx)
		if err != nil {
			return fmt.Errorf("runtime usage: %w", err)
		}
		sampled := 0
		for _, u := range all {
			if len(u.Containers) == 2 {
				sampled++
			}
		}
		if sampled < k {
			return fmt.Errorf("runtime usage: %d of %d pods sampled", sampled, k)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	err = measure.RemoveAll(ctx, pods)
	pods = nil
	return rep, err
}

func (r *usageReport) print(w io.Writer) {
	fmt.Fprintf(w, "\nusage sampling, %d 2-container pods, %d rounds\n\n", r.Pods, r.Rounds)
	fmt.Fprintf(w, "%-28s %12s %14s\n", "per sample of a pod, CPU ms", "Pod.Usage", "Runtime.Usage")
	row := func(name string, a, b float64) { fmt.Fprintf(w, "%-28s %12.2f %14.2f\n", name, a, b) }
	p, a := r.PerPod, r.AllPods
	row("this process", p.ProcessMs, a.ProcessMs)
	row("containerd", p.ContainerdMs, a.ContainerdMs)
	row("shims", p.ShimsMs, a.ShimsMs)
	row("total", p.TotalMs, a.TotalMs)
	row("wall time (ms)", p.WallMs, a.WallMs)
	row("100 pods every 10 s, % core", p.Percent100At10s, a.Percent100At10s)
}
