package scale

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/probe"
)

// Options are the scale measurements' flags.
type Options struct {
	ProbePods  int
	ManyPods   int
	parallel   int
	cpuProfile string
}

// AddFlags registers the scale measurements' flags on the command line's flag set.
func AddFlags() *Options {
	o := &Options{}
	flag.IntVar(&o.ProbePods, "scale-probe-pods", 100, "probescale: pods, each with an httpGet (then tcpSocket) readiness probe every second")
	flag.IntVar(&o.ManyPods, "many-pods", 200, "manypods: one-container pods started at once")
	flag.IntVar(&o.parallel, "scale-parallel", 8, "probescale, manypods: pods started (and removed) at once")
	flag.StringVar(&o.cpuProfile, "scale-cpuprofile", "", "probescale: write a CPU profile of each window to PREFIX-<window>.pprof")
	return o
}

// Probe kinds of a kindProber.
const (
	kindNone int32 = iota // answer Success at once
	kindHTTP
	kindTCP
)

// kindProber is the readiness probe of every probescale pod: an httpGet or a tcpSocket probe of
// port 8080, whichever kind is on, so that one set of pods measures both; it counts its runs.
type kindProber struct {
	http, tcp probe.Prober
	kind      atomic.Int32
	runs      atomic.Int64 // probes made
	ticks     atomic.Int64 // every call, probing or not
	failures  atomic.Int64 // runs that did not succeed
}

// Probe runs the probe of the kind on.
func (k *kindProber) Probe(ctx context.Context, t hook.Target) (probe.Result, string, error) {
	k.ticks.Add(1)
	var p probe.Prober
	switch k.kind.Load() {
	case kindHTTP:
		p = k.http
	case kindTCP:
		p = k.tcp
	default:
		return probe.Success, "", nil
	}
	r, out, err := p.Probe(ctx, t)
	k.runs.Add(1)
	if err != nil || r != probe.Success {
		k.failures.Add(1)
	}
	return r, out, err
}

// scaleWindow is one probescale window.
type scaleWindow struct {
	Name     string  `json:"name"`
	Seconds  float64 `json:"seconds"`
	Runs     int64   `json:"runs"`
	Ticks    int64   `json:"worker_ticks"`
	Failures int64   `json:"failed_runs"`
	// ProcessCPU is the managing process's CPU (podlife and its probe workers), % of one core.
	ProcessCPU float64 `json:"process_cpu_percent"`
	// PerRunMs is the window's process CPU over its runs (over its ticks for "none").
	PerRunMs float64 `json:"process_ms_per_run"`
	Profile  string  `json:"cpu_profile,omitempty"`
}

// ProbesReport is what probescale measured.
type ProbesReport struct {
	Pods          int           `json:"pods"`
	Parallel      int           `json:"parallel"`
	StartSeconds  float64       `json:"start_seconds"` // all started and ready
	StartFailures int           `json:"start_failures"`
	NotReady      int           `json:"not_ready_at_end"`
	Goroutines    int           `json:"goroutines"`
	RSSMiB        float64       `json:"process_rss_mib"`
	Windows       []scaleWindow `json:"windows"`
	RemoveSeconds float64       `json:"remove_seconds"`
}

// ManyPodsReport is what manypods measured.
type ManyPodsReport struct {
	Pods          int      `json:"pods"`
	Parallel      int      `json:"parallel"`
	StartSeconds  float64  `json:"start_seconds"` // all Run calls returned
	StartMedian   float64  `json:"start_median_ms"`
	StartMax      float64  `json:"start_max_ms"`
	Failures      int      `json:"failures"`
	NotRunning    int      `json:"not_running"` // started, but not Running once all had started
	Errors        []string `json:"errors,omitempty"`
	RemoveSeconds float64  `json:"remove_seconds"`
	RemoveErrors  int      `json:"remove_failures"`
}

// startPods runs specs, at most parallel at a time. It returns the pods that started (in specs'
// order, nil for the others), each Run's duration, and the failures.
func startPods(ctx context.Context, rt *podlife.Runtime, specs []podlife.PodSpec, parallel int) ([]*podlife.Pod, []time.Duration, []error) {
	pods := make([]*podlife.Pod, len(specs))
	took := make([]time.Duration, len(specs))
	errs := make([]error, len(specs))
	var g errgroup.Group
	g.SetLimit(parallel)
	for i, s := range specs {
		g.Go(func() error {
			t0 := time.Now()
			p, err := rt.Run(ctx, s)
			took[i] = time.Since(t0)
			if err != nil {
				errs[i] = fmt.Errorf("run %s: %w", s.Name, err)
				if p != nil {
					_ = p.Remove(context.WithoutCancel(ctx))
				}
				return nil
			}
			pods[i] = p
			return nil
		})
	}
	_ = g.Wait()
	return pods, took, errs
}

// removePods removes the pods (nil ones skipped), at most parallel at a time, and returns the
// failures.
func removePods(ctx context.Context, pods []*podlife.Pod, parallel int) []error {
	var mu sync.Mutex
	var errs []error
	var g errgroup.Group
	g.SetLimit(parallel)
	for _, p := range pods {
		if p == nil {
			continue
		}
		g.Go(func() error {
			if err := p.Remove(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("remove %s: %w", p.Name(), err))
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	return errs
}

// MeasureProbes is probescale (see the top of this file).
func MeasureProbes(ctx context.Context, e *measure.Env, o *Options, window time.Duration) (*ProbesReport, error) {
	ns := e.NS("probescale")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	kp := &kindProber{http: probe.HTTPGet(8080, "/"), tcp: probe.TCPSocket(8080)}
	kp.kind.Store(kindHTTP)
	specs := make([]podlife.PodSpec, o.ProbePods)
	for i := range specs {
		specs[i] = podlife.PodSpec{Name: fmt.Sprintf("ps-%d", i), Containers: []podlife.ContainerSpec{{
			Name: "web", Image: measure.Image, Command: measure.HTTPDCmd, StopSignal: syscall.SIGKILL,
			ReadinessProbe: &probe.Spec{Prober: kp, Period: time.Second},
		}}}
	}
	rep := &ProbesReport{Pods: o.ProbePods, Parallel: o.parallel}
	t0 := time.Now()
	pods, _, errs := startPods(ctx, rt, specs, o.parallel)
	defer func() {
		if errs := removePods(context.WithoutCancel(ctx), pods, o.parallel); len(errs) > 0 {
			e.Logger.Error("removing probescale pods", "err", errs)
		}
	}()
	for _, err := range errs {
		if err != nil {
			rep.StartFailures++
			e.Logger.Error("probescale start", "err", err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, p := range pods {
		if p != nil {
			_ = p.WaitReady(wctx)
		}
	}
	rep.StartSeconds = measure.Round1(time.Since(t0).Seconds())
	time.Sleep(2 * time.Second) // let the start's own work settle
	rep.Goroutines = runtime.NumGoroutine()
	rep.RSSMiB = measure.Round1(measure.SettledRSSMiB())
	for _, w := range []struct {
		name string
		kind int32
	}{{"httpGet", kindHTTP}, {"tcpSocket", kindTCP}, {"none", kindNone}} {
		kp.kind.Store(w.kind)
		time.Sleep(1100 * time.Millisecond) // one period: every worker has probed with the new kind
		r0, t0, f0 := kp.runs.Load(), kp.ticks.Load(), kp.failures.Load()
		sw := scaleWindow{Name: w.name}
		stop := func() {}
		if o.cpuProfile != "" {
			sw.Profile = o.cpuProfile + "-" + w.name + ".pprof"
			if stop, err = startProfile(sw.Profile); err != nil {
				return nil, err
			}
		}
		p0, w0 := measure.ProcessCPU(), time.Now()
		select {
		case <-time.After(window):
		case <-ctx.Done():
			stop()
			return nil, ctx.Err()
		}
		cpu, secs := measure.ProcessCPU()-p0, time.Since(w0).Seconds()
		stop()
		sw.Seconds, sw.ProcessCPU = measure.Round1(secs), measure.Round2(cpu.Seconds()/secs*100)
		sw.Runs, sw.Ticks, sw.Failures = kp.runs.Load()-r0, kp.ticks.Load()-t0, kp.failures.Load()-f0
		if n := sw.Runs; n > 0 || sw.Ticks > 0 {
			if n == 0 {
				n = sw.Ticks
			}
			sw.PerRunMs = measure.Round2(cpu.Seconds() * 1000 / float64(n))
		}
		rep.Windows = append(rep.Windows, sw)
	}
	kp.kind.Store(kindHTTP)
	rep.NotReady = measure.NotReady(slices.DeleteFunc(slices.Clone(pods), func(p *podlife.Pod) bool { return p == nil }))
	t1 := time.Now()
	rerrs := removePods(ctx, pods, o.parallel)
	pods = nil
	if len(rerrs) > 0 {
		return nil, rerrs[0]
	}
	rep.RemoveSeconds = measure.Round1(time.Since(t1).Seconds())
	if err := measure.CheckShims(ctx, ns); err != nil {
		return nil, err
	}
	return rep, nil
}

// startProfile starts a CPU profile written to path; the function it returns stops it.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// MeasureManyPods is manypods (see the top of this file).
func MeasureManyPods(ctx context.Context, e *measure.Env, o *Options) (*ManyPodsReport, error) {
	ns := e.NS("many")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	specs := make([]podlife.PodSpec, o.ManyPods)
	for i := range specs {
		specs[i] = podlife.PodSpec{Name: fmt.Sprintf("many-%d", i), Containers: []podlife.ContainerSpec{{
			Name: "sleep", Image: measure.Image, Command: []string{"sleep", "3600"}, StopSignal: syscall.SIGKILL,
		}}}
	}
	rep := &ManyPodsReport{Pods: o.ManyPods, Parallel: o.parallel}
	t0 := time.Now()
	pods, took, errs := startPods(ctx, rt, specs, o.parallel)
	rep.StartSeconds = measure.Round1(time.Since(t0).Seconds())
	defer func() {
		if errs := removePods(context.WithoutCancel(ctx), pods, o.parallel); len(errs) > 0 {
			e.Logger.Error("removing manypods pods", "err", errs)
		}
	}()
	st := measure.Summarize(took)
	rep.StartMedian, rep.StartMax = st.Median, st.Max
	for _, err := range errs {
		if err != nil {
			rep.Failures++
			if len(rep.Errors) < 5 {
				rep.Errors = append(rep.Errors, err.Error())
			}
		}
	}
	for _, p := range pods {
		if p != nil && p.Status().Phase != podlife.PhaseRunning {
			rep.NotRunning++
		}
	}
	t1 := time.Now()
	rerrs := removePods(ctx, pods, o.parallel)
	pods = nil
	rep.RemoveSeconds = measure.Round1(time.Since(t1).Seconds())
	rep.RemoveErrors = len(rerrs)
	for _, err := range rerrs {
		if len(rep.Errors) < 10 {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	if err := measure.CheckShims(ctx, ns); err != nil {
		return nil, err
	}
	return rep, nil
}

// Print writes probescale's table to w.
func (r *ProbesReport) Print(w io.Writer) {
	fmt.Fprintf(w, "\nprobescale: %d pods (busybox httpd), each with a readiness probe every 1s, started %d at a time\n", r.Pods, r.Parallel)
	fmt.Fprintf(w, "started and ready in %.1f s (%d failed, %d not ready at the end); removed in %.1f s; %d goroutines, RSS %.1f MiB\n",
		r.StartSeconds, r.StartFailures, r.NotReady, r.RemoveSeconds, r.Goroutines, r.RSSMiB)
	fmt.Fprintf(w, "%-10s %6s %7s %7s %7s %22s %16s\n", "probe", "s", "runs", "ticks", "failed", "process CPU (% 1 core)", "process ms/run")
	for _, x := range r.Windows {
		fmt.Fprintf(w, "%-10s %6.1f %7d %7d %7d %22.2f %16.3f\n", x.Name, x.Seconds, x.Runs, x.Ticks, x.Failures, x.ProcessCPU, x.PerRunMs)
	}
	for _, x := range r.Windows {
		if x.Profile != "" {
			fmt.Fprintf(w, "CPU profile of %s: %s\n", x.Name, x.Profile)
		}
	}
}

// Print writes manypods' line to w.
func (r *ManyPodsReport) Print(w io.Writer) {
	fmt.Fprintf(w, "\nmanypods: %d one-container pods, %d started at a time: all started in %.1f s (Run median %.0f ms, max %.0f ms), %d failed, %d not Running; removed (%d at a time) in %.1f s, %d failed\n",
		r.Pods, r.Parallel, r.StartSeconds, r.StartMedian, r.StartMax, r.Failures, r.NotRunning, r.Parallel, r.RemoveSeconds, r.RemoveErrors)
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "errors:\n  %s\n", strings.Join(r.Errors, "\n  "))
	}
}
