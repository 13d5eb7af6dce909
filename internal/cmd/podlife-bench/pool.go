package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/bench/cri"
	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

// poolReport is the warm pool's measurement (-only pool): Run of a spec that Runtime.Prewarm
// keeps ready, beside the cold start of the same run (times), and what a ready member costs.
// With crun on the host, the same pod of runtime class crun from its own pool, iterations
// alternating with runc's (Crun).
type poolReport struct {
	Iterations int          `json:"iterations"`
	Start      measure.Stat `json:"start"`
	StartCPU   measure.Stat `json:"start_cpu"`
	Stop       measure.Stat `json:"stop"`
	// ColdRatio is Start's median over the cold podlife start's of the same run (0 without
	// times); FloorRatio over the floor's.
	ColdRatio  float64 `json:"cold_ratio,omitempty"`
	FloorRatio float64 `json:"floor_ratio,omitempty"`
	// Crun is the pool of runtime class crun (nil without crun; CrunError says why).
	Crun      *poolClassReport `json:"crun,omitempty"`
	CrunError string           `json:"crun_error,omitempty"`
	// ExecGate is the same pool (runc) with Config.ExecGate (nil if the gate could not be
	// built; ExecGateError says why), iterations alternating with the others'.
	ExecGate      *poolClassReport `json:"exec_gate,omitempty"`
	ExecGateError string           `json:"exec_gate_error,omitempty"`
	// Members ready while memory was read, and per member: the shim's PSS, the loggers', the
	// created processes' (runc init, waiting to be started), and their sum.
	Members             int     `json:"members"`
	ShimPSSMiB          float64 `json:"shim_pss_mib"`
	LoggersPSSMiB       float64 `json:"loggers_pss_mib"`
	RuncInitPSSMiB      float64 `json:"runc_init_pss_mib"`
	MemberPSSMiB        float64 `json:"member_pss_mib"`
	ManagerMiBPerMember float64 `json:"manager_mib_per_member"`
	// GateMemberPSSMiB is a ready member's PSS with the exec gate (shim, loggers and the gate
	// processes in place of runc init); GatePSSMiB the gate processes' part.
	GateMemberPSSMiB float64 `json:"gate_member_pss_mib,omitempty"`
	GatePSSMiB       float64 `json:"gate_pss_mib,omitempty"`
	// ManyGate is -many pods started at once from as many gated members (nil: not measured).
	ManyGate *poolManyReport `json:"many_gate,omitempty"`
}

// poolManyReport is many bench pods started at once (one goroutine each) from a pool with the
// exec gate that has a member ready for each: how long until every Run returned, and each Run.
type poolManyReport struct {
	Pods         int          `json:"pods"`
	AllRunningMs float64      `json:"all_running_ms"`
	PodStart     measure.Stat `json:"pod_start"`
	FromPool     int          `json:"from_pool"`
	RemovedMs    float64      `json:"removed_ms"`
}

// poolClassReport is a pool's figures for a runtime class other than the default, or with the
// exec gate.
type poolClassReport struct {
	Class    string       `json:"class"`
	Start    measure.Stat `json:"start"`
	StartCPU measure.Stat `json:"start_cpu"`
	Stop     measure.Stat `json:"stop"`
	// RuncRatio is Start's median over the runc pool's of the same run.
	RuncRatio float64 `json:"runc_ratio"`
}

// poolRun is one runtime class's pool during measurePool: its runtime, template and samples.
type poolRun struct {
	name, class    string // name: the pods' names' prefix and the report's; class: the runtime class
	rt             *podlife.Runtime
	tmpl           podlife.PodSpec
	start, cpu, rm []time.Duration
}

// iterate waits for the pool to be full (not timed), times Run of the spec (which takes the
// member), waits for the refill (not timed) and times the pod's removal; i < 0 is a warm-up.
func (p *poolRun) iterate(ctx context.Context, i int) error {
	if err := p.rt.Prewarm(ctx, p.tmpl, 1); err != nil { // waits until the member is ready
		return err
	}
	spec := measure.BenchPod(fmt.Sprintf("pool-%s%d", p.name, i+1))
	spec.RuntimeClassName = p.class
	t0, c0 := time.Now(), measure.CPUTime()
	pod, err := p.rt.Run(ctx, spec)
	if err != nil {
		return err
	}
	start, cpu := time.Since(t0), measure.CPUTime()-c0
	if !startedFromPool(pod) {
		return fmt.Errorf("pod %s was not started from the pool", pod.Name())
	}
	if err := p.rt.Prewarm(ctx, p.tmpl, 1); err != nil { // the refill, not timed: Remove alone is
		return err
	}
	t1 := time.Now()
	if err := pod.Remove(ctx); err != nil {
		return err
	}
	if i >= 0 {
		p.start, p.rm, p.cpu = append(p.start, start), append(p.rm, time.Since(t1)), append(p.cpu, cpu)
	}
	return nil
}

// measurePool prewarms members of the bench pod, then n times (after one warm-up) times a start
// from the pool and the pod's removal (poolRun.iterate), alternating with the same on a pool of
// runtime class crun if the host has crun. Then it keeps `members` members (runc) ready and
// reads what they cost.
func measurePool(ctx context.Context, e *measure.Env, n, members, many int, rep *report) error {
	ns := e.NS("pool")
	rt, err := e.Runtime(ctx, ns, podlife.ShimPerPod)
	if err != nil {
		return err
	}
	defer func() {
		rt.Close()
		_ = measure.CheckShims(context.WithoutCancel(ctx), ns)
	}()
	tmpl := measure.BenchPod("pool-template")
	runs := []*poolRun{{rt: rt, tmpl: tmpl}}
	if _, err := exec.LookPath("crun"); err == nil {
		cns := e.NS("pool-crun")
		crt, err := e.Runtime(ctx, cns, podlife.ShimPerPod)
		if err != nil {
			return err
		}
		defer func() {
			crt.Close()
			_ = measure.CheckShims(context.WithoutCancel(ctx), cns)
		}()
		ctmpl := measure.BenchPod("pool-template")
		ctmpl.RuntimeClassName = "crun"
		runs = append(runs, &poolRun{name: "crun", class: "crun", rt: crt, tmpl: ctmpl})
	}
	r := &poolReport{Iterations: n, Members: members, CrunError: "crun not found"}
	gns := e.NS("pool-gate")
	var grt *podlife.Runtime
	if gate, err := podlifetest.ExecGate(e.Dir); err != nil {
		r.ExecGateError = err.Error()
	} else if grt, err = e.Runtime(ctx, gns, podlife.ShimPerPod, func(c *podlife.Config) { c.ExecGate = gate }); err != nil {
		return err
	} else {
		defer func() {
			grt.Close()
			_ = measure.CheckShims(context.WithoutCancel(ctx), gns)
		}()
		runs = append(runs, &poolRun{name: "gate", rt: grt, tmpl: tmpl})
	}
	for i := -1; i < n; i++ {
		for j := 0; j < len(runs); j++ {
			if err := runs[j].iterate(ctx, i); err != nil {
				if j == 0 {
					return err
				}
				// crun may refuse the host (docs/troubleshooting.md): runc's figures stand.
				msg := fmt.Sprintf("%s: %v", runs[j].name, err)
				if runs[j].name == "gate" {
					r.ExecGateError, grt = msg, nil
				} else {
					r.CrunError = msg
				}
				runs = slices.Delete(runs, j, j+1)
				j--
			}
		}
	}
	r.Start, r.StartCPU, r.Stop = measure.Summarize(runs[0].start), measure.Summarize(runs[0].cpu), measure.Summarize(runs[0].rm)
	for _, c := range runs[1:] {
		cr := &poolClassReport{Class: c.name, Start: measure.Summarize(c.start), StartCPU: measure.Summarize(c.cpu), Stop: measure.Summarize(c.rm)}
		if r.Start.Median > 0 {
			cr.RuncRatio = cr.Start.Median / r.Start.Median
		}
		if c.name == "gate" {
			r.ExecGate, r.ExecGateError = cr, ""
		} else {
			r.Crun, r.CrunError = cr, ""
		}
		if err := c.rt.Prewarm(ctx, c.tmpl, 0); err != nil {
			return err
		}
	}
	if rep.PodlifeStart.Median > 0 {
		r.ColdRatio = r.Start.Median / rep.PodlifeStart.Median
	}
	if rep.FloorStart.Median > 0 {
		r.FloorRatio = r.Start.Median / rep.FloorStart.Median
	}
	if many > 0 && many <= podlife.MaxPoolMembers && grt != nil {
		if r.ManyGate, err = manyFromPool(ctx, grt, tmpl, many); err != nil {
			return fmt.Errorf("%d pods at once from the pool: %w", many, err)
		}
	}
	if members > 0 {
		m0 := measure.SettledRSSMiB()
		if err := rt.Prewarm(ctx, tmpl, members); err != nil {
			return err
		}
		if members > 1 { // the pool had one member when m0 was read
			r.ManagerMiBPerMember = max(0, measure.SettledRSSMiB()-m0) / float64(members-1)
		}
		_, shim, _ := measure.ShimMemory(ns)
		_, loggers, _ := measure.LoggerMemory(filepath.Join(e.Dir, ns))
		_, inits := waitingMemory(ns, isRuncInit)
		k := float64(members)
		r.ShimPSSMiB, r.LoggersPSSMiB, r.RuncInitPSSMiB = shim/k, loggers/k, inits/k
		r.MemberPSSMiB = (shim + loggers + inits) / k
		if err := rt.Prewarm(ctx, tmpl, 0); err != nil {
			return err
		}
		if grt != nil {
			if err := grt.Prewarm(ctx, tmpl, members); err != nil {
				return err
			}
			_, shim, _ := measure.ShimMemory(gns)
			_, loggers, _ := measure.LoggerMemory(filepath.Join(e.Dir, gns))
			_, gates := waitingMemory(gns, isExecGate)
			r.GatePSSMiB, r.GateMemberPSSMiB = gates/k, (shim+loggers+gates)/k
			if err := grt.Prewarm(ctx, tmpl, 0); err != nil {
				return err
			}
		}
	}
	rep.Pool = r
	return nil
}

// manyFromPool keeps k members of tmpl ready on rt (not timed), starts k bench pods at once
// (one goroutine each: they take the members), times until every Run returned, then drops the
// pool and removes the pods all at once (timed).
func manyFromPool(ctx context.Context, rt *podlife.Runtime, tmpl podlife.PodSpec, k int) (*poolManyReport, error) {
	if err := rt.Prewarm(ctx, tmpl, k); err != nil {
		return nil, err
	}
	pods, each, errs := make([]*podlife.Pod, k), make([]time.Duration, k), make([]error, k)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range k {
		wg.Go(func() {
			t := time.Now()
			pods[i], errs[i] = rt.Run(ctx, measure.BenchPod(fmt.Sprintf("pool-many-%d", i)))
			each[i] = time.Since(t)
		})
	}
	wg.Wait()
	rep := &poolManyReport{Pods: k, AllRunningMs: measure.MS(time.Since(t0)), PodStart: measure.Summarize(each)}
	// The refill would make k members again meanwhile the removal: the pool goes first.
	if err := rt.Prewarm(ctx, tmpl, 0); err != nil {
		errs = append(errs, err)
	}
	t1 := time.Now()
	for i := range k {
		if p := pods[i]; p != nil {
			if startedFromPool(p) {
				rep.FromPool++
			}
			wg.Go(func() { errs[i] = errors.Join(errs[i], p.Remove(ctx)) })
		}
	}
	wg.Wait()
	rep.RemovedMs = measure.MS(time.Since(t1))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rep, nil
}

func startedFromPool(p *podlife.Pod) bool {
	for _, e := range p.Events() {
		if e.Reason == reasons.StartedFromPool {
			return true
		}
	}
	return false
}

// isRuncInit matches a created, not started, container process (runc init).
func isRuncInit(args []string) bool {
	return len(args) >= 2 && strings.HasSuffix(args[0], "runc") && args[1] == "init"
}

// isExecGate matches a gated container process waiting in its exec gate.
func isExecGate(args []string) bool { return len(args) >= 2 && args[0] == execgate.BinaryPath }

// waitingMemory sums the PSS (MiB) of the container processes waiting to be started (those
// whose arguments match) in the cgroups of containerd namespace ns.
func waitingMemory(ns string, match func(args []string) bool) (n int, pss float64) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if !match(strings.Split(string(b), "\x00")) {
			continue
		}
		dir := filepath.Dir(p)
		cg, _ := os.ReadFile(filepath.Join(dir, "cgroup"))
		if !slices.ContainsFunc(strings.Split(string(cg), "\n"), func(l string) bool { return strings.Contains(l, "/"+ns+"/") }) {
			continue
		}
		n++
		pss += measure.StatusKiB(filepath.Join(dir, "smaps_rollup"), "Pss:") / 1024
	}
	return n, pss
}

func (r *poolReport) print(w io.Writer) {
	fmt.Fprintf(w, "\nwarm pool (Runtime.Prewarm), the same pod, %d iterations\n\n", r.Iterations)
	row := measure.StatTable(w)
	row("pool start", r.Start, r.ColdRatio)
	row("pool st. CPU", r.StartCPU, 0)
	row("pool stop", r.Stop, 0)
	if c := r.Crun; c != nil {
		row("pool start "+c.Class, c.Start, 0)
		row("pool st.CPU "+c.Class, c.StartCPU, 0)
		row("pool stop "+c.Class, c.Stop, 0)
		fmt.Fprintf(w, "(runtime class %s: its own pool, iterations alternating with runc's; start %.2fx runc's)\n", c.Class, c.RuncRatio)
	} else if r.CrunError != "" {
		fmt.Fprintf(w, "(runtime class crun: not measured: %s)\n", r.CrunError)
	}
	if g := r.ExecGate; g != nil {
		row("pool start gate", g.Start, 0)
		row("pool st.CPU gate", g.StartCPU, 0)
		row("pool stop gate", g.Stop, 0)
		fmt.Fprintf(w, "(exec gate, Config.ExecGate: its own pool (runc), iterations alternating; start %.2fx runc's pool)\n", g.RuncRatio)
	} else if r.ExecGateError != "" {
		fmt.Fprintf(w, "(exec gate: not measured: %s)\n", r.ExecGateError)
	}
	if r.FloorRatio > 0 {
		fmt.Fprintf(w, "(ratio: to podlife's cold start; %.2fx the floor's start)\n", r.FloorRatio)
	}
	if r.Members > 0 {
		fmt.Fprintf(w, "a ready member, %d kept: %.2f MiB PSS (shim %.2f, loggers %.2f, created processes %.2f); manager +%.2f MiB RSS\n",
			r.Members, r.MemberPSSMiB, r.ShimPSSMiB, r.LoggersPSSMiB, r.RuncInitPSSMiB, r.ManagerMiBPerMember)
		if r.GateMemberPSSMiB > 0 {
			fmt.Fprintf(w, "a ready member with the exec gate: %.2f MiB PSS (gate processes %.2f)\n", r.GateMemberPSSMiB, r.GatePSSMiB)
		}
	}
}

func (m *poolManyReport) print(w io.Writer, c *cri.Report) {
	fmt.Fprintf(w, "\n%d bench pods started at once from a warm pool with the exec gate (%d members ready; %d taken)\n", m.Pods, m.Pods, m.FromPool)
	fmt.Fprintf(w, "all run %.0f ms, one pod median/max %.1f/%.1f ms, removed %.0f ms\n", m.AllRunningMs, m.PodStart.Median, m.PodStart.Max, m.RemovedMs)
	if ms, pods := c.ManyCRIAllRunning(); ms > 0 && pods == m.Pods {
		fmt.Fprintf(w, "beside the CRI row's %d cold pods at once (%.0f ms): %.3fx (the CRI row takes %.0fx)\n", pods, ms, m.AllRunningMs/ms, ms/m.AllRunningMs)
	}
}
