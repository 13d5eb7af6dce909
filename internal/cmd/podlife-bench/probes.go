package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/probe"
)

// httpdCmd serves "ok" on port 8080: what the probe pods run.
var httpdCmd = []string{"/bin/sh", "-c", "mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www"}

// switchedProber wraps a prober shared by every probe pod: it counts the runs and failures, and
// while off it answers Success without probing, so that one kind of probe can be left out of a
// window without touching the pods (their probe workers still tick).
type switchedProber struct {
	inner    probe.Prober
	on       atomic.Bool
	runs     atomic.Int64 // probes made while on
	skipped  atomic.Int64 // worker ticks while off
	failures atomic.Int64 // runs that did not succeed (Failure, Unknown or a prober error)
}

func newSwitchedProber(p probe.Prober) *switchedProber {
	s := &switchedProber{inner: p}
	s.on.Store(true)
	return s
}

// prober is what the pods' specs carry.
func (s *switchedProber) prober() probe.Prober {
	return probe.ProberFunc(func(ctx context.Context, t hook.Target) (probe.Result, string, error) {
		if !s.on.Load() {
			s.skipped.Add(1)
			return probe.Success, "", nil
		}
		r, out, err := s.inner.Probe(ctx, t)
		s.runs.Add(1)
		if err != nil || (r != probe.Success && r != probe.Warning) {
			s.failures.Add(1)
		}
		return r, out, err
	})
}

func probePod(name string, exec, http *switchedProber) podlife.PodSpec {
	return podlife.PodSpec{Name: name, Containers: []podlife.ContainerSpec{{
		Name: "web", Image: image, Command: httpdCmd, StopSignal: syscall.SIGKILL,
		ReadinessProbe: &probe.Spec{Prober: exec.prober(), Period: time.Second},
		LivenessProbe:  &probe.Spec{Prober: http.prober(), Period: time.Second},
	}}}
}

// probeWindow is what one measurement window saw. CPU percentages are of one core (this
// machine's total is 100 x its cores).
type probeWindow struct {
	Name     string  `json:"name"`
	Seconds  float64 `json:"seconds"`
	ExecRuns int64   `json:"exec_runs"`
	HTTPRuns int64   `json:"http_runs"`
	Ticks    int64   `json:"worker_ticks"` // every worker tick, probing or not
	Failures int64   `json:"failed_runs"`
	// ProcessCPU is the managing process (podlife and its probe workers), from getrusage.
	ProcessCPU float64 `json:"process_cpu_percent"`
	// StackCPU adds containerd, the pods' shims and everything under them (runc, exec'd
	// processes, the containers), from /proc/PID/stat.
	StackCPU float64 `json:"stack_cpu_percent"`
	// MachineCPU is the whole machine's busy time, from /proc/stat (other load included).
	MachineCPU float64 `json:"machine_cpu_percent"`

	secs                    float64
	process, stack, machine time.Duration
}

// probeCost is the CPU time one probe run costs, in milliseconds.
type probeCost struct {
	Name    string  `json:"name"`
	Runs    int64   `json:"runs"`
	Process float64 `json:"process_ms"`
	Stack   float64 `json:"stack_ms"`
	Machine float64 `json:"machine_ms"`
}

type probeReport struct {
	Pods           int           `json:"pods"`
	StartSeconds   float64       `json:"start_seconds"` // to start them all and see them ready
	Windows        []probeWindow `json:"windows"`
	Costs          []probeCost   `json:"costs_per_run"`
	RSSMiB         float64       `json:"process_rss_before_mib"`
	RSSWithPodsMiB float64       `json:"process_rss_with_pods_mib"`
	KiBPerPod      float64       `json:"process_kib_per_pod"`
	Restarts       int           `json:"restarts"`  // liveness kills during the measurement: expected 0
	NotReady       int           `json:"not_ready"` // pods not ready at the end of the windows: expected 0
	RemoveSeconds  float64       `json:"remove_seconds"`
}

// measureProbes runs k pods, each with an exec readiness probe and an httpGet liveness probe of
// period 1 s, and measures the CPU over four windows of length window: both probes, exec only,
// httpGet only, and neither (the workers still tick, the prober answers at once). A probe
// kind's cost per run is its window's CPU minus the last window's, divided by its runs.
func (e *env) measureProbes(ctx context.Context, k int, window time.Duration) (*probeReport, error) {
	ns := e.ns("probes")
	rt, err := e.runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	exec, http := newSwitchedProber(probe.Exec("/bin/true")), newSwitchedProber(probe.HTTPGet(8080, "/"))
	rep := &probeReport{Pods: k, RSSMiB: rssMiB()}
	var pods []*podlife.Pod
	defer func() {
		if err := removeAll(context.WithoutCancel(ctx), pods); err != nil {
			e.logger.Error("removing probe pods", "err", err)
		}
	}()
	t0 := time.Now()
	for i := range k {
		p, err := rt.Run(ctx, probePod(fmt.Sprintf("probe-%d", i), exec, http))
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, p := range pods {
		if err := p.WaitReady(wctx); err != nil {
			return nil, fmt.Errorf("pod %s ready: %w", p.Name(), err)
		}
	}
	rep.StartSeconds = round1(time.Since(t0).Seconds())
	time.Sleep(2 * time.Second) // let the start's own work settle

	roots := func() []int { return append(podlifetest.ShimPIDs(ns), e.ctrd.Daemon.PID()) }
	for _, w := range []struct {
		name       string
		exec, http bool
	}{{"exec+httpGet", true, true}, {"exec only", true, false}, {"httpGet only", false, true}, {"none", false, false}} {
		exec.on.Store(w.exec)
		http.on.Store(w.http)
		time.Sleep(100 * time.Millisecond) // let probes in flight finish
		r := []int64{exec.runs.Load(), http.runs.Load(), exec.skipped.Load() + http.skipped.Load(), exec.failures.Load() + http.failures.Load()}
		p0, s0, m0, w0 := processCPU(), treeCPU(roots()), cpuTime(), time.Now()
		if w.name == "exec+httpGet" {
			rep.RSSWithPodsMiB = rssMiB()
		}
		select {
		case <-time.After(window):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pw := probeWindow{Name: w.name, secs: time.Since(w0).Seconds(),
			process: processCPU() - p0, stack: treeCPU(roots()) - s0, machine: cpuTime() - m0,
			ExecRuns: exec.runs.Load() - r[0], HTTPRuns: http.runs.Load() - r[1],
			Failures: exec.failures.Load() + http.failures.Load() - r[3]}
		pw.Ticks = pw.ExecRuns + pw.HTTPRuns + exec.skipped.Load() + http.skipped.Load() - r[2]
		pw.stack += pw.process // the tree does not include this process
		pw.Seconds = round1(pw.secs)
		pw.ProcessCPU, pw.StackCPU, pw.MachineCPU = percent(pw.process, pw.secs), percent(pw.stack, pw.secs), percent(pw.machine, pw.secs)
		rep.Windows = append(rep.Windows, pw)
	}
	rep.KiBPerPod = math.Round((rep.RSSWithPodsMiB - rep.RSSMiB) * 1024 / float64(k))
	both, execOnly, httpOnly, none := rep.Windows[0], rep.Windows[1], rep.Windows[2], rep.Windows[3]
	rep.Costs = []probeCost{
		cost("exec+httpGet", both, probeWindow{}, both.ExecRuns+both.HTTPRuns),
		cost("exec", execOnly, none, execOnly.ExecRuns),
		cost("httpGet", httpOnly, none, httpOnly.HTTPRuns),
		cost("worker tick", none, probeWindow{}, none.Ticks),
	}
	for _, p := range pods {
		st := p.Status()
		for _, c := range st.ContainerStatuses {
			rep.Restarts += c.RestartCount
		}
		if r, n := st.ReadyCount(); r != n {
			rep.NotReady++
		}
	}
	t1 := time.Now()
	err = removeAll(ctx, pods)
	pods = nil
	if err != nil {
		return nil, err
	}
	rep.RemoveSeconds = round1(time.Since(t1).Seconds())
	if err := checkShims(ctx, ns); err != nil {
		return nil, err
	}
	return rep, nil
}

// cost is the CPU per run of window w beyond the rate of window base (none if base is zero).
func cost(name string, w, base probeWindow, runs int64) probeCost {
	c := probeCost{Name: name, Runs: runs}
	if runs == 0 {
		return c
	}
	per := func(d, b time.Duration) float64 {
		extra := d.Seconds()
		if base.secs > 0 {
			extra -= b.Seconds() / base.secs * w.secs
		}
		return math.Round(extra/float64(runs)*1e5) / 100 // ms, 2 decimals
	}
	c.Process, c.Stack, c.Machine = per(w.process, base.process), per(w.stack, base.stack), per(w.machine, base.machine)
	return c
}

// removeAll removes pods, four at a time.
func removeAll(ctx context.Context, pods []*podlife.Pod) error {
	var g errgroup.Group
	g.SetLimit(4)
	for _, p := range pods {
		g.Go(func() error {
			if err := p.Remove(ctx); err != nil {
				return fmt.Errorf("remove %s: %w", p.Name(), err)
			}
			return nil
		})
	}
	return g.Wait()
}

func percent(d time.Duration, seconds float64) float64 {
	return round1(d.Seconds() / seconds * 100)
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func (r *probeReport) print(w io.Writer) {
	fmt.Fprintf(w, "\nprobes: %d pods, each with an exec readiness probe (/bin/true) and an httpGet liveness probe, period 1s\n", r.Pods)
	fmt.Fprintf(w, "started and ready in %.1f s; removed in %.1f s; restarts %d, not ready %d\n", r.StartSeconds, r.RemoveSeconds, r.Restarts, r.NotReady)
	fmt.Fprintf(w, "%-14s %6s %9s %9s %7s %11s %9s %11s\n", "window", "s", "exec runs", "http runs", "failed", "process %", "stack %", "machine %")
	for _, x := range r.Windows {
		fmt.Fprintf(w, "%-14s %6.1f %9d %9d %7d %11.1f %9.1f %11.1f\n", x.Name, x.Seconds, x.ExecRuns, x.HTTPRuns, x.Failures, x.ProcessCPU, x.StackCPU, x.MachineCPU)
	}
	fmt.Fprintf(w, "%-14s %6s %11s %9s %11s\n", "CPU per run", "runs", "process ms", "stack ms", "machine ms")
	for _, c := range r.Costs {
		fmt.Fprintf(w, "%-14s %6d %11.2f %9.2f %11.2f\n", c.Name, c.Runs, c.Process, c.Stack, c.Machine)
	}
	fmt.Fprintf(w, "managing process RSS: %.1f MiB before, %.1f MiB with %d probed pods (%.0f KiB per pod)\n",
		r.RSSMiB, r.RSSWithPodsMiB, r.Pods, r.KiBPerPod)
}
