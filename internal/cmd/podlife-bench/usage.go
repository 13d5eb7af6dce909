package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// usageReport is the CPU cost of sampling pods' usage (Pod.Usage), what `podlife top`, the
// metrics collector and podlife-node's stats APIs do at each scrape.
type usageReport struct {
	Pods   int `json:"pods"`
	Rounds int `json:"rounds"`
	// Per sample of one 2-container pod, in milliseconds of CPU: this process, containerd,
	// the pods' shims (and anything under them), and their sum.
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
// row, reading the CPU time of this process, containerd and the shims around it.
func (e *env) measureUsage(ctx context.Context, k, rounds int) (*usageReport, error) {
	ns := e.ns("usage")
	rt, err := e.runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	var pods []*podlife.Pod
	defer func() {
		if err := removeAll(context.WithoutCancel(ctx), pods); err != nil {
			e.logger.Error("removing usage pods", "err", err)
		}
	}()
	for i := range k {
		p, err := rt.Run(ctx, benchPod(fmt.Sprintf("usage-%d", i)))
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
	ctrdPID := e.ctrd.Daemon.PID()
	shims := podlifetest.ShimPIDs(ns)
	p0, c0, s0, w0 := processCPU(), pidCPU(ctrdPID), treeCPU(shims), time.Now()
	for range rounds {
		for _, p := range pods {
			if _, err := p.Usage(ctx); err != nil {
				return nil, fmt.Errorf("pod %s: usage: %w", p.Name(), err)
			}
		}
	}
	n := float64(k * rounds)
	ms := func(d time.Duration) float64 { return round2(float64(d) / float64(time.Millisecond) / n) }
	rep := &usageReport{Pods: k, Rounds: rounds, WallMs: ms(time.Since(w0)),
		ProcessMs: ms(processCPU() - p0), ContainerdMs: ms(pidCPU(ctrdPID) - c0), ShimsMs: ms(treeCPU(shims) - s0)}
	rep.TotalMs = round2(rep.ProcessMs + rep.ContainerdMs + rep.ShimsMs)
	rep.Percent100At10s = round2(rep.TotalMs * 100 / 10000 * 100)
	err = removeAll(ctx, pods)
	pods = nil
	return rep, err
}

func (r *usageReport) print(w io.Writer) {
	fmt.Fprintf(w, "\nusage sampling (Pod.Usage), %d 2-container pods, %d rounds\n\n", r.Pods, r.Rounds)
	fmt.Fprintf(w, "%-28s %8s\n", "per sample of a pod", "CPU ms")
	fmt.Fprintf(w, "%-28s %8.2f\n", "this process", r.ProcessMs)
	fmt.Fprintf(w, "%-28s %8.2f\n", "containerd", r.ContainerdMs)
	fmt.Fprintf(w, "%-28s %8.2f\n", "shims", r.ShimsMs)
	fmt.Fprintf(w, "%-28s %8.2f\n", "total", r.TotalMs)
	fmt.Fprintf(w, "%-28s %8.2f\n", "wall time (ms)", r.WallMs)
	fmt.Fprintf(w, "100 pods every 10 s: %.2f%% of a core\n", r.Percent100At10s)
}
