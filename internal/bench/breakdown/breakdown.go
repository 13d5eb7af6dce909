package breakdown

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
)

// cpuLine is one kind of process in a phase: how many ran per pod and their CPU per pod.
type cpuLine struct {
	Process string  `json:"process"`
	PerPod  float64 `json:"processes_per_pod"`
	CPUms   float64 `json:"cpu_ms_per_pod"`
}

// phaseBreakdown is one phase (start or teardown) of the bench pod, averaged over the pods.
type phaseBreakdown struct {
	Wall       measure.Stat `json:"wall"`
	Lines      []cpuLine    `json:"cpu"`
	Attributed float64      `json:"attributed_cpu_ms_per_pod"`
	Total      float64      `json:"cgroup_cpu_ms_per_pod"` // exact, 0 without cpuacct
}

// Report is the breakdown measurement.
type Report struct {
	Pods     int            `json:"pods"`
	Start    phaseBreakdown `json:"start"`
	Teardown phaseBreakdown `json:"teardown"`
	// Steps are the start's steps, medians in ms since Run was called (events) or of the step's
	// own duration (podlife's debug step timings).
	Steps []stepLine `json:"steps"`
}

type stepLine struct {
	Step string       `json:"step"`
	Ms   measure.Stat `json:"ms"`
}

// stepLog keeps podlife's debug step timings ("container created": spec, newContainer,
// newTask; "sandbox created"; "start sequence done") while passing every record on.
type stepLog struct {
	next slog.Handler
	mu   *sync.Mutex
	got  map[string][]time.Duration
}

func (h stepLog) Enabled(ctx context.Context, l slog.Level) bool { return l >= slog.LevelDebug }

func (h stepLog) Handle(ctx context.Context, r slog.Record) error {
	switch r.Message {
	case "container created", "sandbox created", "start sequence done":
		h.mu.Lock()
		r.Attrs(func(a slog.Attr) bool {
			if a.Value.Kind() == slog.KindDuration {
				key := a.Key
				if key == "took" {
					key = r.Message
				}
				h.got[key] = append(h.got[key], a.Value.Duration())
			}
			return true
		})
		h.mu.Unlock()
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h stepLog) WithAttrs(as []slog.Attr) slog.Handler {
	return stepLog{next: h.next.WithAttrs(as), mu: h.mu, got: h.got}
}
func (h stepLog) WithGroup(name string) slog.Handler {
	return stepLog{next: h.next.WithGroup(name), mu: h.mu, got: h.got}
}

// phaseCPU accumulates one phase's CPU per process kind over the pods.
type phaseCPU struct {
	count map[string]int
	cpu   map[string]time.Duration
	total time.Duration
}

func newPhaseCPU() *phaseCPU {
	return &phaseCPU{count: map[string]int{}, cpu: map[string]time.Duration{}}
}

func (c *phaseCPU) add(kind string, n int, d time.Duration) {
	c.count[kind] += n
	c.cpu[kind] += d
}

func (c *phaseCPU) result(pods int, wall []time.Duration) phaseBreakdown {
	b := phaseBreakdown{Wall: measure.Summarize(wall), Total: measure.MS(c.total) / float64(pods)}
	for k, d := range c.cpu {
		b.Lines = append(b.Lines, cpuLine{Process: k, PerPod: float64(c.count[k]) / float64(pods), CPUms: measure.MS(d) / float64(pods)})
		b.Attributed += measure.MS(d) / float64(pods)
	}
	slices.SortFunc(b.Lines, func(x, y cpuLine) int {
		if x.CPUms != y.CPUms {
			if x.CPUms > y.CPUms {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Process, y.Process)
	})
	return b
}

// processKind names what an exited or live process of the stack was, by its command name.
func processKind(comm string) string {
	switch {
	case comm == "runc":
		return "runc (create, start, delete, ...)"
	case comm == "containerd-shim":
		return "shim's start and delete processes (containerd-shim-runc-v2 start, delete)"
	case comm == "podlife-logger":
		return "container logger (podlife-logger)"
	case comm == "bridge" || comm == "host-local" || comm == "portmap" || comm == "loopback" || comm == "tuning" || comm == "firewall":
		return "CNI plugin " + comm
	case strings.HasPrefix(comm, "iptables") || strings.HasPrefix(comm, "ip6tables") || strings.HasPrefix(comm, "xtables"):
		return "iptables (run by CNI plugins)"
	case comm == "exe" || strings.HasPrefix(comm, "runc:"):
		return "runc init " + strings.TrimPrefix(comm, "runc:") + " (in the container)"
	case comm == "sleep":
		return "container process (sleep; runc init's records)"
	}
	return comm
}

// window is one phase of one pod: when it ran (CLOCK_MONOTONIC) and which processes of the stack
// lived at its ends.
type window struct {
	from, to     time.Duration
	acct0, acct1 int64
	group        time.Duration // the stack cgroup's CPU time in the window
}

// liveStack is the processes in the stack's cgroup now, but this process and containerd (the
// pods' shims and loggers), by their command names.
func liveStack(e *measure.Env, g *cpuGroup, into map[int]string) {
	for _, pid := range g.pids() {
		if pid != os.Getpid() && pid != e.Ctrd.Daemon.PID() {
			into[pid] = procComm(pid)
		}
	}
}

// count adds to c how many processes of each kind of the stack exited in w (process accounting).
func count(e *measure.Env, c *phaseCPU, acct *processAccounting, w window, live map[int]string) error {
	recs, err := acct.records(w.acct0, w.acct1)
	if err != nil {
		return err
	}
	// A record is the stack's if its parent is: this process, containerd, a live process of
	// the stack, or another such record (a child exits before its parent).
	parent := map[int]int{}
	for _, r := range recs {
		parent[r.pid] = r.ppid
	}
	var ours func(pid, depth int) bool
	ours = func(pid, depth int) bool {
		if pid == os.Getpid() || pid == e.Ctrd.Daemon.PID() || live[pid] != "" {
			return true
		}
		pp, ok := parent[pid]
		return ok && depth < 20 && ours(pp, depth+1)
	}
	for _, r := range recs {
		if live[r.pid] == "" && ours(r.ppid, 0) {
			c.add(processKind(r.comm), 1, 0)
		}
	}
	return nil
}

// sampleKind names the process of a perf sample.
func sampleKind(e *measure.Env, s perfSample, live map[int]string) string {
	switch {
	case s.pid == os.Getpid():
		return "podlife (this process)"
	case s.pid == e.Ctrd.Daemon.PID():
		return "containerd"
	case live[s.pid] == "containerd-shim":
		return "shim (containerd-shim-runc-v2)"
	case s.comm == procComm(os.Getpid()):
		return "podlife's children before their exec"
	}
	return processKind(s.comm)
}

// Measure runs n bench pods one after another (one warm-up, not counted), each started
// and removed, and splits their wall and CPU time.
func Measure(ctx context.Context, e *measure.Env, n int, perfData string) (*Report, error) {
	steps := stepLog{next: e.Logger.Handler(), mu: &sync.Mutex{}, got: map[string][]time.Duration{}}
	saved := e.Logger
	e.Logger = slog.New(steps)
	rt, err := e.Runtime(ctx, e.NS("breakdown"), podlife.ShimPerPod)
	e.Logger = saved
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	// perf first, so that it stays out of the stack's cgroup.
	sampler, err := startSampler(ctx, cmp.Or(perfData, filepath.Join(e.Dir, "perf.data")), os.Getpid(), e.Ctrd.Daemon.PID())
	if err != nil {
		return nil, err
	}
	defer sampler.stop()
	g, err := newCPUGroup("plb-"+e.RunID, os.Getpid(), e.Ctrd.Daemon.PID())
	if err != nil {
		return nil, fmt.Errorf("cpuacct cgroup: %w", err)
	}
	defer g.close()
	acct, err := startAccounting(e.Dir)
	if err != nil {
		return nil, err
	}
	defer acct.stop()
	if err := measure.RunRemove(ctx, rt, "breakdown-warm"); err != nil {
		return nil, err
	}
	steps.mu.Lock()
	clear(steps.got)
	steps.mu.Unlock()
	live := map[int]string{}
	var starts, stops []window
	var startWall, stopWall []time.Duration
	events := map[string][]time.Duration{}
	for i := range n {
		w := window{from: monotonic(), acct0: acct.offset(), group: g.usage()}
		t0 := time.Now()
		pod, err := rt.Run(ctx, measure.BenchPod(fmt.Sprintf("breakdown-%d", i)))
		if err != nil {
			return nil, err
		}
		d := time.Since(t0)
		w.to, w.acct1, w.group = monotonic(), acct.offset(), g.usage()-w.group
		starts = append(starts, w)
		podLive := map[int]string{}
		liveStack(e, g, podLive)
		maps.Copy(live, podLive)
		for _, ev := range pod.Events() {
			key := string(ev.Reason)
			if ev.Container != "" {
				key += " " + ev.Container
			}
			if len(events[key]) == i {
				events[key] = append(events[key], ev.Time.Sub(t0))
			}
		}
		events["Run returned"] = append(events["Run returned"], d)
		w = window{from: monotonic(), acct0: acct.offset(), group: g.usage()}
		t1 := time.Now()
		if err := pod.Remove(ctx); err != nil {
			return nil, err
		}
		stopWall = append(stopWall, time.Since(t1))
		startWall = append(startWall, d)
		// The shim and the loggers exit a moment after Remove returns: wait for them.
		waitGone(podLive, 5*time.Second)
		w.to, w.acct1, w.group = monotonic(), acct.offset(), g.usage()-w.group
		stops = append(stops, w)
	}
	if err := sampler.stop(); err != nil {
		return nil, err
	}
	samples, err := sampler.samples()
	if err != nil {
		return nil, err
	}
	if perfData != "" {
		if err := writeWindows(perfData+".windows", starts, stops); err != nil {
			return nil, err
		}
	}
	start, stop := newPhaseCPU(), newPhaseCPU()
	for _, ph := range []struct {
		c  *phaseCPU
		ws []window
	}{{start, starts}, {stop, stops}} {
		for _, w := range ph.ws {
			ph.c.total += w.group
			if err := count(e, ph.c, acct, w, live); err != nil {
				return nil, err
			}
		}
		for _, s := range samples {
			for _, w := range ph.ws {
				if s.at >= w.from && s.at < w.to {
					ph.c.add(sampleKind(e, s, live), 0, perfPeriod)
					break
				}
			}
		}
	}
	if err := measure.CheckShims(ctx, e.NS("breakdown")); err != nil {
		return nil, err
	}
	rep := &Report{Pods: n, Start: start.result(n, startWall), Teardown: stop.result(n, stopWall)}
	for k, ds := range events {
		rep.Steps = append(rep.Steps, stepLine{Step: "at " + k, Ms: measure.Summarize(ds)})
	}
	steps.mu.Lock()
	for k, ds := range steps.got {
		rep.Steps = append(rep.Steps, stepLine{Step: "took " + k, Ms: measure.Summarize(ds)})
	}
	steps.mu.Unlock()
	slices.SortFunc(rep.Steps, func(x, y stepLine) int {
		if c := strings.Compare(x.Step[:2], y.Step[:2]); c != 0 {
			return c
		}
		if x.Ms.Median < y.Ms.Median {
			return -1
		}
		if x.Ms.Median > y.Ms.Median {
			return 1
		}
		return strings.Compare(x.Step, y.Step)
	})
	return rep, nil
}

// writeWindows writes the phases' windows to path, one a line: "start" or "teardown", then its
// first and last CLOCK_MONOTONIC second (as perf script prints a sample's time), so that a
// recording kept by -breakdown-perf-data can be read one phase at a time.
func writeWindows(path string, starts, stops []window) error {
	var b strings.Builder
	for _, ph := range []struct {
		name string
		ws   []window
	}{{"start", starts}, {"teardown", stops}} {
		for _, w := range ph.ws {
			fmt.Fprintf(&b, "%s %.6f %.6f\n", ph.name, w.from.Seconds(), w.to.Seconds())
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// waitGone waits (up to limit) until none of the processes procs is alive.
func waitGone(procs map[int]string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for pid := range procs {
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// procComm is process pid's command name.
func procComm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}

// Print writes the breakdown's tables to w.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\nwhere a start and a teardown go, %d bench pods one after another (ms; CPU per pod)\n", r.Pods)
	for _, s := range r.Steps {
		fmt.Fprintf(w, "  %-40s median %7.1f  min %7.1f  max %7.1f\n", s.Step, s.Ms.Median, s.Ms.Min, s.Ms.Max)
	}
	for _, ph := range []struct {
		name string
		b    phaseBreakdown
	}{{"start", r.Start}, {"teardown", r.Teardown}} {
		fmt.Fprintf(w, "%s: wall median %.1f ms; CPU per pod %.1f ms sampled (perf), %.1f ms in the stack's cgroup\n",
			ph.name, ph.b.Wall.Median, ph.b.Attributed, ph.b.Total)
		for _, l := range ph.b.Lines {
			fmt.Fprintf(w, "  %-52s %5.2f per pod %8.1f ms\n", l.Process, l.PerPod, l.CPUms)
		}
	}
}
