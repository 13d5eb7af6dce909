package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

func (e *env) runtime(ctx context.Context, ns string, shims podlife.ShimMode) (*podlife.Runtime, error) {
	rt, err := podlife.New(ctx, podlife.Config{Address: e.ctrd.Daemon.Address(), Namespace: ns,
		StateDir: filepath.Join(e.dir, ns), Network: e.bridge, Shims: shims, Logger: e.logger, ContainerLogger: e.containerLogger})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := podlifetest.BusyboxArchive(&buf, image); err != nil {
		rt.Close()
		return nil, err
	}
	if _, err := rt.ImportImage(ctx, &buf); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}

func benchPod(name string) podlife.PodSpec {
	return podlife.PodSpec{Name: name, Containers: []podlife.ContainerSpec{
		{Name: "c1", Image: image, Command: containerCmd, StopSignal: syscall.SIGKILL},
		{Name: "c2", Image: image, Command: containerCmd, StopSignal: syscall.SIGKILL},
	}}
}

// measureTimes alternates floor and podlife iterations (one warm-up each, not counted) so that
// drift on a shared machine hits both alike.
func (e *env) measureTimes(ctx context.Context, n int, rep *report) error {
	f, err := newFloor(ctx, e)
	if err != nil {
		return err
	}
	rt, err := e.runtime(ctx, e.ns("pods"), podlife.ShimPerPod)
	if err != nil {
		return err
	}
	defer rt.Close()
	var fs, fp, ps, pp, fc, pc []time.Duration
	for i := -1; i < n; i++ {
		c0 := cpuTime()
		p, d, err := f.start(i + 1)
		fcpu := cpuTime() - c0
		if err != nil {
			f.cleanup(p)
			return fmt.Errorf("floor start: %w", err)
		}
		ds, err := f.stop(p)
		if err != nil {
			f.cleanup(p)
			return fmt.Errorf("floor stop: %w", err)
		}
		t0, c1 := time.Now(), cpuTime()
		pod, err := rt.Run(ctx, benchPod(fmt.Sprintf("bench-%d", i+1)))
		if err != nil {
			return err
		}
		start, pcpu := time.Since(t0), cpuTime()-c1
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
	if err := checkShims(ctx, e.ns("pods")); err != nil {
		return err
	}
	if err := checkShims(ctx, e.ns("floor")); err != nil {
		return err
	}
	rep.FloorStart, rep.FloorStop = summarize(fs), summarize(fp)
	rep.PodlifeStart, rep.PodlifeStop = summarize(ps), summarize(pp)
	rep.FloorStartCPU, rep.PodlifeStartCPU = summarize(fc), summarize(pc)
	rep.StartRatio = rep.PodlifeStart.Median / rep.FloorStart.Median
	rep.StopRatio = rep.PodlifeStop.Median / rep.FloorStop.Median
	return nil
}

// measureMemory keeps k pods running under each shim mode and reads the shims' PSS and the
// managing process's RSS.
func (e *env) measureMemory(ctx context.Context, k int, modes []podlife.ShimMode, rep *report) error {
	rep.Pods = k
	rep.ProcessRSSMiB = rssMiB()
	ctrdPID := e.ctrd.Daemon.PID()
	for _, mode := range modes {
		ns := e.ns("mem-" + string(mode))
		rt, err := e.runtime(ctx, ns, mode)
		if err != nil {
			return err
		}
		// A warm-up pod, so that the growth counts pods, not first uses.
		if err := runRemove(ctx, rt, "mem-warm"); err != nil {
			rt.Close()
			return err
		}
		manager0, ctrd0 := settledRSSMiB(), pidRSSMiB(ctrdPID)
		var pods []*podlife.Pod
		for i := range k {
			p, err := rt.Run(ctx, benchPod(fmt.Sprintf("mem-%d", i)))
			if err != nil {
				rt.Close()
				return err
			}
			pods = append(pods, p)
		}
		shims, pss, rss := shimMemory(ns)
		m := shimReport{Mode: string(mode), Shims: shims, PSSPerPodMiB: pss / float64(k), RSSPerPodMiB: rss / float64(k)}
		total := pss
		m.Loggers, pss, rss = loggerMemory(filepath.Join(e.dir, ns))
		if m.Loggers > 0 {
			m.LoggerPSSMiB, m.LoggerRSSMiB = pss/float64(m.Loggers), rss/float64(m.Loggers)
		}
		m.ManagerMiBPerPod = max(0, settledRSSMiB()-manager0) / float64(k)
		m.ContainerdMiBPerPod = max(0, pidRSSMiB(ctrdPID)-ctrd0) / float64(k)
		m.TotalPerPodMiB = (total+pss)/float64(k) + m.ManagerMiBPerPod + m.ContainerdMiBPerPod
		if rep.ProcessRSSWithPodsMiB == 0 { // the first mode's (ShimPerPod by default)
			rep.ProcessRSSWithPodsMiB = rssMiB()
		}
		rep.ShimModes = append(rep.ShimModes, m)
		for _, p := range pods {
			if err := p.Remove(ctx); err != nil {
				rt.Close()
				return err
			}
		}
		rt.Close()
		if err := checkShims(ctx, ns); err != nil {
			return err
		}
	}
	rep.ManagerKiBPerPod = (rep.ProcessRSSWithPodsMiB - rep.ProcessRSSMiB) * 1024 / float64(k)
	return nil
}

// runRemove runs the bench pod named name on rt and removes it.
func runRemove(ctx context.Context, rt *podlife.Runtime, name string) error {
	p, err := rt.Run(ctx, benchPod(name))
	if err != nil {
		return err
	}
	return p.Remove(ctx)
}

// checkShims fails if shims of namespace ns outlive their pods; then it removes the host
// directories (runc state, cgroups) that the namespace's containers leave behind.
func checkShims(ctx context.Context, ns string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if leaks := podlifetest.ShimLeaks(ctx, ns); len(leaks) > 0 {
		return fmt.Errorf("leak: %v", leaks)
	}
	return podlifetest.RemoveNamespaceDirs(ns)
}
