package probes

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/probe"
)

// Switched wraps a prober shared by the probe pods: it counts the runs and failures, and
// answers Success at once, without probing, while off or for a pod whose index is not below
// pods. So one kind of probe can be left out of a window, or run on some of the pods only,
// without touching the pods (their probe workers still tick).
type Switched struct {
	inner       probe.Prober
	pods        int // pods whose probe really runs: those of index 0 to pods-1
	on          atomic.Bool
	Runs        atomic.Int64 // probes made
	skipped     atomic.Int64 // worker ticks answered at once
	Failures    atomic.Int64 // runs that did not succeed (Failure, Unknown or a prober error)
	inFlight    atomic.Int64 // probes running now (an abandoned one until its prober returns)
	maxInFlight atomic.Int64
}

// NewSwitched wraps p for pods probe pods; it starts on.
func NewSwitched(p probe.Prober, pods int) *Switched {
	s := &Switched{inner: p, pods: pods}
	s.on.Store(true)
	return s
}

// Prober is what pod number i carries.
func (s *Switched) Prober(i int) probe.Prober {
	return probe.ProberFunc(func(ctx context.Context, t hook.Target) (probe.Result, string, error) {
		if i >= s.pods || !s.on.Load() {
			s.skipped.Add(1)
			return probe.Success, "", nil
		}
		raise(&s.maxInFlight, s.inFlight.Add(1))
		r, out, err := s.inner.Probe(ctx, t)
		s.inFlight.Add(-1)
		s.Runs.Add(1)
		if err != nil || (r != probe.Success && r != probe.Warning) {
			s.Failures.Add(1)
		}
		return r, out, err
	})
}

// raise sets m to n if n is larger.
func raise(m *atomic.Int64, n int64) {
	for old := m.Load(); n > old && !m.CompareAndSwap(old, n); old = m.Load() {
	}
}

func probePod(i int, exec, http *Switched) podlife.PodSpec {
	return podlife.PodSpec{Name: fmt.Sprintf("probe-%d", i), Containers: []podlife.ContainerSpec{{
		Name: "web", Image: measure.Image, Command: measure.HTTPDCmd, StopSignal: syscall.SIGKILL,
		ReadinessProbe: &probe.Spec{Prober: exec.Prober(i), Period: time.Second},
		LivenessProbe:  &probe.Spec{Prober: http.Prober(i), Period: time.Second},
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
	// MaxExecInFlight is the most exec probes running at once: above the exec pods, probes
	// outlive their timeout and pile up.
	MaxExecInFlight int64 `json:"max_exec_in_flight"`
	// ProcessCPU is the managing process (podlife and its probe workers), from getrusage.
	ProcessCPU float64 `json:"process_cpu_percent"`
	// ContainerdCPU is the containerd daemon alone, from /proc/PID/stat.
	ContainerdCPU float64 `json:"containerd_cpu_percent"`
	// StackCPU adds containerd, the pods' shims and everything under them (runc, exec'd
	// processes, the containers), from /proc/PID/stat.
	StackCPU float64 `json:"stack_cpu_percent"`
	// MachineCPU is the whole machine's busy time, from /proc/stat (other load included).
	MachineCPU float64 `json:"machine_cpu_percent"`

	secs                          float64
	process, ctrd, stack, machine time.Duration
}

// probeCost is the CPU time one probe run costs, in milliseconds.
type probeCost struct {
	Name       string  `json:"name"`
	Runs       int64   `json:"runs"`
	Process    float64 `json:"process_ms"`
	Containerd float64 `json:"containerd_ms"`
	Stack      float64 `json:"stack_ms"`
	Machine    float64 `json:"machine_ms"`
}

// Report is the probe cost's figures: the windows' CPU and the cost per run.
type Report struct {
	Pods         int           `json:"pods"`
	ExecPods     int           `json:"exec_pods"`     // pods whose exec probe really runs
	StartSeconds float64       `json:"start_seconds"` // to start them all and see them ready
	Windows      []probeWindow `json:"windows"`
	// Costs per run: "exec+httpGet" is that window's whole CPU over all its runs; "exec" and
	// "httpGet" are their window's CPU beyond the "none" window's rate; "none, per tick" is that
	// window's whole CPU (idle pods included) over its worker ticks.
	Costs           []probeCost `json:"costs_per_run"`
	RSSMiB          float64     `json:"process_rss_before_mib"`
	RSSWithPodsMiB  float64     `json:"process_rss_with_pods_mib"`
	KiBPerPod       float64     `json:"process_kib_per_pod"`
	Restarts        int         `json:"restarts"`           // liveness kills during the measurement: expected 0
	NotReadyAtStart int         `json:"not_ready_at_start"` // pods not ready a minute after the last start: expected 0
	NotReady        int         `json:"not_ready"`          // pods not ready after the windows: expected 0
	RemoveSeconds   float64     `json:"remove_seconds"`
}

// Measure runs k pods, each with an exec readiness probe and an httpGet liveness probe of
// period 1 s, and measures the CPU over four windows of length window: both probes, exec only,
// httpGet only, and neither (the workers still tick, the prober answers at once). The exec probe
// really runs on execPods of the pods only: one costs about 100 ms of CPU, so 50 a second would
// need more cores than a small machine has, and then exec probes pile up. A probe kind's cost
// per run is its window's CPU beyond the last window's rate, divided by its runs.
func Measure(ctx context.Context, e *measure.Env, k, execPods int, window time.Duration) (*Report, error) {
	ns := e.NS("probes")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	execPods = min(execPods, k)
	exec, http := NewSwitched(probe.Exec("/bin/true"), execPods), NewSwitched(probe.HTTPGet(8080, "/"), k)
	rep := &Report{Pods: k, ExecPods: execPods, RSSMiB: measure.Round1(measure.SettledRSSMiB())}
	var pods []*podlife.Pod
	defer func() {
		if err := measure.RemoveAll(context.WithoutCancel(ctx), pods); err != nil {
			e.Logger.Error("removing probe pods", "err", err)
		}
	}()
	t0 := time.Now()
	for i := range k {
		p, err := rt.Run(ctx, probePod(i, exec, http))
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	// Overloaded (too many exec probes for the machine), pods may never all be ready: wait a
	// minute at most, and measure anyway.
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, p := range pods {
		if err := p.WaitReady(wctx); err != nil && wctx.Err() == nil {
			return nil, fmt.Errorf("pod %s ready: %w", p.Name(), err)
		}
	}
	rep.StartSeconds = measure.Round1(time.Since(t0).Seconds())
	rep.NotReadyAtStart = measure.NotReady(pods)
	time.Sleep(2 * time.Second) // let the start's own work settle

	ctrdPID := e.Ctrd.Daemon.PID()
	roots := func() []int { return append(podlifetest.ShimPIDs(ns), ctrdPID) }
	for _, w := range []struct {
		name       string
		exec, http bool
	}{{"exec+httpGet", true, true}, {"exec only", true, false}, {"httpGet only", false, true}, {"none", false, false}} {
		exec.on.Store(w.exec)
		http.on.Store(w.http)
		time.Sleep(100 * time.Millisecond) // let probes in flight finish
		exec.maxInFlight.Store(exec.inFlight.Load())
		n0 := countProbes(exec, http)
		if w.name == "exec+httpGet" {
			rep.RSSWithPodsMiB = measure.Round1(measure.SettledRSSMiB())
		}
		p0, c0, s0, m0, w0 := measure.ProcessCPU(), measure.PIDCPU(ctrdPID), measure.TreeCPU(roots()), measure.CPUTime(), time.Now()
		select {
		case <-time.After(window):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pw := probeWindow{Name: w.name, secs: time.Since(w0).Seconds(),
			process: measure.ProcessCPU() - p0, ctrd: measure.PIDCPU(ctrdPID) - c0, stack: measure.TreeCPU(roots()) - s0, machine: measure.CPUTime() - m0,
			MaxExecInFlight: exec.maxInFlight.Load()}
		n := countProbes(exec, http)
		pw.ExecRuns, pw.HTTPRuns = n.exec-n0.exec, n.http-n0.http
		pw.Ticks, pw.Failures = n.ticks-n0.ticks, n.failures-n0.failures
		pw.stack += pw.process // the tree does not include this process
		pw.Seconds = measure.Round1(pw.secs)
		pw.ProcessCPU, pw.ContainerdCPU = measure.Percent(pw.process, pw.secs), measure.Percent(pw.ctrd, pw.secs)
		pw.StackCPU, pw.MachineCPU = measure.Percent(pw.stack, pw.secs), measure.Percent(pw.machine, pw.secs)
		rep.Windows = append(rep.Windows, pw)
	}
	rep.KiBPerPod = math.Round((rep.RSSWithPodsMiB - rep.RSSMiB) * 1024 / float64(k))
	both, execOnly, httpOnly, none := rep.Windows[0], rep.Windows[1], rep.Windows[2], rep.Windows[3]
	rep.Costs = []probeCost{
		cost("exec+httpGet", both, probeWindow{}, both.ExecRuns+both.HTTPRuns),
		cost("exec", execOnly, none, execOnly.ExecRuns),
		cost("httpGet", httpOnly, none, httpOnly.HTTPRuns),
		cost("none, per tick", none, probeWindow{}, none.Ticks),
	}
	rep.NotReady = measure.NotReady(pods)
	for _, p := range pods {
		for _, c := range p.Status().ContainerStatuses {
			rep.Restarts += c.RestartCount
		}
	}
	t1 := time.Now()
	err = measure.RemoveAll(ctx, pods)
	pods = nil
	if err != nil {
		return nil, err
	}
	rep.RemoveSeconds = measure.Round1(time.Since(t1).Seconds())
	if err := measure.CheckShims(ctx, ns); err != nil {
		return nil, err
	}
	return rep, nil
}

// probeCounts are the counters of both probers at one moment.
type probeCounts struct{ exec, http, ticks, failures int64 }

func countProbes(exec, http *Switched) probeCounts {
	e, h := exec.Runs.Load(), http.Runs.Load()
	return probeCounts{exec: e, http: h, ticks: e + h + exec.skipped.Load() + http.skipped.Load(),
		failures: exec.Failures.Load() + http.Failures.Load()}
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
	c.Process, c.Containerd = per(w.process, base.process), per(w.ctrd, base.ctrd)
	c.Stack, c.Machine = per(w.stack, base.stack), per(w.machine, base.machine)
	return c
}

// Print writes the probe cost's tables to w.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\nprobes: %d pods, each with an exec readiness probe (/bin/true; it really runs on %d of them) and an httpGet liveness probe, period 1s\n",
		r.Pods, r.ExecPods)
	fmt.Fprintf(w, "started and ready in %.1f s (%d not ready); removed in %.1f s; restarts %d, not ready at the end %d\n",
		r.StartSeconds, r.NotReadyAtStart, r.RemoveSeconds, r.Restarts, r.NotReady)
	fmt.Fprintf(w, "%-14s %6s %9s %9s %7s %9s %10s %11s %8s %10s\n", "CPU % (1 core)", "s", "exec runs", "http runs", "failed",
		"in flight", "process", "containerd", "stack", "machine")
	for _, x := range r.Windows {
		fmt.Fprintf(w, "%-14s %6.1f %9d %9d %7d %9d %10.1f %11.1f %8.1f %10.1f\n", x.Name, x.Seconds, x.ExecRuns, x.HTTPRuns, x.Failures,
			x.MaxExecInFlight, x.ProcessCPU, x.ContainerdCPU, x.StackCPU, x.MachineCPU)
	}
	fmt.Fprintf(w, "%-14s %6s %9s %9s %7s %9s %10s %11s %8s %10s\n", "ms per run", "", "runs", "", "", "", "process", "containerd", "stack", "machine")
	for _, c := range r.Costs {
		fmt.Fprintf(w, "%-14s %6s %9d %9s %7s %9s %10.2f %11.2f %8.2f %10.2f\n", c.Name, "", c.Runs, "", "", "", c.Process, c.Containerd, c.Stack, c.Machine)
	}
	fmt.Fprintf(w, "managing process RSS after a GC: %.1f MiB before, %.1f MiB with %d probed pods (%.0f KiB per pod)\n",
		r.RSSMiB, r.RSSWithPodsMiB, r.Pods, r.KiBPerPod)
}
