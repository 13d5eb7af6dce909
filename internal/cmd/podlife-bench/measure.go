package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/internal/bench/floor"
	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
)

// measureTimes alternates floor and podlife iterations (one warm-up each, not counted) so that
// drift on a shared machine hits both alike.
func measureTimes(ctx context.Context, e *measure.Env, n int, rep *report) error {
	f, err := floor.New(ctx, e)
	if err != nil {
		return err
	}
	rt, err := e.Runtime(ctx, e.NS("pods"), podlife.ShimPerPod)
	if err != nil {
		return err
	}
	defer rt.Close()
	var fs, fp, ps, pp, fc, pc []time.Duration
	for i := -1; i < n; i++ {
		c0 := measure.CPUTime()
		p, d, err := f.Start(i + 1)
		fcpu := measure.CPUTime() - c0
		if err != nil {
			f.Cleanup(p)
			return fmt.Errorf("floor start: %w", err)
		}
		ds, err := f.Stop(p)
		if err != nil {
			f.Cleanup(p)
			return fmt.Errorf("floor stop: %w", err)
		}
		t0, c1 := time.Now(), measure.CPUTime()
		pod, err := rt.Run(ctx, measure.BenchPod(fmt.Sprintf("bench-%d", i+1)))
		if err != nil {
			return err
		}
		start, pcpu := time.Since(t0), measure.CPUTime()-c1
		t1 := time.Now()
		if err := pod.Remove(ctx); err != nil {
			return err
		}
		stop := time.Since(t1)
		if i >= 0 {
			fs, fp, ps, pp = append(fs, d), append(fp, ds), append(ps, start), append(pp, stop)
			fc, pc = append(fc, fcpu), append(pc, pcpu)
		}
	}
	if err := measure.CheckShims(ctx, e.NS("pods")); err != nil {
		return err
	}
	if err := measure.CheckShims(ctx, e.NS("floor")); err != nil {
		return err
	}
	rep.FloorStart, rep.FloorStop = measure.Summarize(fs), measure.Summarize(fp)
	rep.PodlifeStart, rep.PodlifeStop = measure.Summarize(ps), measure.Summarize(pp)
	rep.FloorStartCPU, rep.PodlifeStartCPU = measure.Summarize(fc), measure.Summarize(pc)
	rep.StartRatio = rep.PodlifeStart.Median / rep.FloorStart.Median
	rep.StopRatio = rep.PodlifeStop.Median / rep.FloorStop.Median
	return nil
}

// measureMemory keeps k pods running under each shim mode and reads the shims' PSS and the
// managing process's RSS.
func measureMemory(ctx context.Context, e *measure.Env, k int, modes []podlife.ShimMode, rep *report) error {
	rep.Pods = k
	rep.ProcessRSSMiB = measure.RSSMiB()
	ctrdPID := e.Ctrd.Daemon.PID()
	for _, mode := range modes {
		ns := e.NS("mem-" + string(mode))
		rt, err := e.Runtime(ctx, ns, mode)
		if err != nil {
			return err
		}
		// A warm-up pod, so that the growth counts pods, not first uses.
		if err := measure.RunRemove(ctx, rt, "mem-warm"); err != nil {
			rt.Close()
			return err
		}
		manager0, ctrd0 := measure.SettledRSSMiB(), measure.PIDRSSMiB(ctrdPID)
		var pods []*podlife.Pod
		for i := range k {
			p, err := rt.Run(ctx, measure.BenchPod(fmt.Sprintf("mem-%d", i)))
			if err != nil {
				rt.Close()
				return err
			}
			pods = append(pods, p)
		}
		shims, pss, rss := measure.ShimMemory(ns)
		m := shimReport{Mode: string(mode), Shims: shims, PSSPerPodMiB: pss / float64(k), RSSPerPodMiB: rss / float64(k)}
		total := pss
		m.Loggers, pss, rss = measure.LoggerMemory(filepath.Join(e.Dir, ns))
		if m.Loggers > 0 {
			m.LoggerPSSMiB, m.LoggerRSSMiB = pss/float64(m.Loggers), rss/float64(m.Loggers)
		}
		m.ManagerMiBPerPod = max(0, measure.SettledRSSMiB()-manager0) / float64(k)
		m.ContainerdMiBPerPod = max(0, measure.PIDRSSMiB(ctrdPID)-ctrd0) / float64(k)
		m.TotalPerPodMiB = (total+pss)/float64(k) + m.ManagerMiBPerPod + m.ContainerdMiBPerPod
		if rep.ProcessRSSWithPodsMiB == 0 { // the first mode's (ShimPerPod by default)
			rep.ProcessRSSWithPodsMiB = measure.RSSMiB()
		}
		rep.ShimModes = append(rep.ShimModes, m)
		for _, p := range pods {
			if err := p.Remove(ctx); err != nil {
				rt.Close()
				return err
			}
		}
		rt.Close()
		if err := measure.CheckShims(ctx, ns); err != nil {
			return err
		}
	}
	rep.ManagerKiBPerPod = (rep.ProcessRSSWithPodsMiB - rep.ProcessRSSMiB) * 1024 / float64(k)
	return nil
}
