package cri

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
)

// Report compares podlife with containerd's CRI plugin driven as the kubelet drives it:
// the bench pod started and removed one at a time (iterations alternating), then many pods
// at once.
type Report struct {
	Iterations int `json:"iterations"`
	// Pause is the sandbox image's PID 1.
	Pause           string       `json:"pause"`
	CRIStart        measure.Stat `json:"cri_start"`
	PodlifeStart    measure.Stat `json:"podlife_start"`
	CRIStartCPU     measure.Stat `json:"cri_start_cpu"`
	PodlifeStartCPU measure.Stat `json:"podlife_start_cpu"`
	CRIStop         measure.Stat `json:"cri_stop"`
	PodlifeStop     measure.Stat `json:"podlife_stop"`
	StartRatio      float64      `json:"start_ratio"` // podlife / CRI, medians
	StopRatio       float64      `json:"stop_ratio"`
	// CRISteps is where the CRI row's start goes: each kind of call's time (medians), the
	// other calls and the bench's own file writes in "other".
	CRISteps map[string]measure.Stat `json:"cri_steps"`
	// Memory is the CRI row's memory with pods running, if measured.
	Memory *criMemory `json:"memory,omitempty"`
	// Many is the many-pods-at-once measurement, if run.
	Many      *manyReport `json:"many,omitempty"`
	ManyError string      `json:"many_error,omitempty"`
}

// Measure starts the CRI containerd (the same binary as the bench's) and alternates CRI
// and podlife iterations of the bench pod (one warm-up each, not counted); then, if many > 0,
// it starts many pods at once on each and removes them all at once; if memPods > 0, it keeps
// that many CRI pods running and reads their memory.
func Measure(ctx context.Context, e *measure.Env, bin string, n, many, memPods int) (rep *Report, err error) {
	dir := filepath.Join(e.Dir, "cri")
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return nil, err
	}
	d, err := startCRI(ctx, e, bin, dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := d.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("CRI cleanup: %w", cerr))
		}
	}()
	ns := e.NS("cri-podlife")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	var cs, cp, ps, pp, cc, pc []time.Duration
	steps := make([][]time.Duration, len(criSteps))
	for i := -1; i < n; i++ {
		c0, t0 := measure.CPUTime(), time.Now()
		p, err := d.runCRIPod(ctx, fmt.Sprintf("cri-%d", i+1), fmt.Sprintf("%s-%d", e.RunID, i+1))
		start, ccpu := time.Since(t0), measure.CPUTime()-c0
		if err != nil {
			return nil, errors.Join(err, d.removeCRIPod(ctx, p))
		}
		t1 := time.Now()
		if err := d.removeCRIPod(ctx, p); err != nil {
			return nil, err
		}
		stop := time.Since(t1)
		c1, t2 := measure.CPUTime(), time.Now()
		pod, err := rt.Run(ctx, measure.BenchPod(fmt.Sprintf("crib-%d", i+1)))
		if err != nil {
			return nil, err
		}
		pstart, pcpu := time.Since(t2), measure.CPUTime()-c1
		t3 := time.Now()
		if err := pod.Remove(ctx); err != nil {
			return nil, err
		}
		pstop := time.Since(t3)
		if i >= 0 {
			cs, cp, ps, pp = append(cs, start), append(cp, stop), append(ps, pstart), append(pp, pstop)
			cc, pc = append(cc, ccpu), append(pc, pcpu)
			for j := range criSteps {
				steps[j] = append(steps[j], p.steps[j])
			}
		}
	}
	rep = &Report{Iterations: n, Pause: d.pause,
		CRIStart: measure.Summarize(cs), CRIStop: measure.Summarize(cp), PodlifeStart: measure.Summarize(ps), PodlifeStop: measure.Summarize(pp),
		CRIStartCPU: measure.Summarize(cc), PodlifeStartCPU: measure.Summarize(pc)}
	rep.CRISteps = map[string]measure.Stat{}
	for j, name := range criSteps {
		rep.CRISteps[name] = measure.Summarize(steps[j])
	}
	rep.StartRatio = rep.PodlifeStart.Median / rep.CRIStart.Median
	rep.StopRatio = rep.PodlifeStop.Median / rep.CRIStop.Median
	if memPods > 0 {
		if rep.Memory, err = d.measureMemory(ctx, e.RunID, memPods); err != nil {
			return nil, fmt.Errorf("memory: %w", err)
		}
	}
	if many > 0 {
		if rep.Many, err = measureMany(ctx, e, d, rt, many); err != nil {
			rep.ManyError, err = err.Error(), nil
		}
	}
	if err := measure.CheckShims(ctx, ns); err != nil {
		return nil, err
	}
	return rep, nil
}

// ManyCRIAllRunning is how long the CRI plugin's pods started at once took until all ran (ms),
// and how many there were; 0, 0 if not measured.
func (r *Report) ManyCRIAllRunning() (ms float64, pods int) {
	if r == nil || r.Many == nil {
		return 0, 0
	}
	return r.Many.CRI.AllRunningMs, r.Many.Pods
}
