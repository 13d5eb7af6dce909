package cri

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// manyReport is many bench pods started at once (one goroutine each, as the kubelet's pod
// workers do) until all are running, then removed at once, on podlife and on the CRI plugin.
type manyReport struct {
	Pods    int     `json:"pods"`
	Podlife manyRun `json:"podlife"`
	CRI     manyRun `json:"cri"`
	Ratio   float64 `json:"start_ratio"` // podlife / CRI, time until all run
	Stop    float64 `json:"stop_ratio"`
}

// manyRun is one side's figures. CPU is split where the bench can see it: Manager is the
// process that drives the pods, with its reaped children (podlife: this process, its CNI
// plugins; CRI: containerd, which runs the CRI plugin and its CNI plugins), Containerd the
// daemon serving podlife (podlife only), Shims the pods' shims with runc and the containers
// under them; Machine is all busy CPU (other work on the host included).
type manyRun struct {
	AllRunningMs float64 `json:"all_running_ms"`
	// PodStart is the distribution of one pod's own start (from its goroutine's start).
	PodStart     measure.Stat `json:"pod_start"`
	AllRemovedMs float64      `json:"all_removed_ms"`
	ManagerCPUMs float64      `json:"manager_cpu_ms"`
	// ManagerOwnCPUMs is the manager process's own CPU, without its children (podlife's row
	// only: the bench process, which is podlife; its CNI plugins are its children).
	ManagerOwnCPUMs float64 `json:"manager_own_cpu_ms,omitempty"`
	ContainerdCPU   float64 `json:"containerd_cpu_ms,omitempty"`
	ShimsCPUMs      float64 `json:"shims_cpu_ms"`
	MachineCPUMs    float64 `json:"machine_cpu_ms"`
}

// measureMany runs k pods at once on podlife (rt) and then on the CRI plugin (d), and
// removes them all at once after each start.
func measureMany(ctx context.Context, e *measure.Env, d *criDaemon, rt *podlife.Runtime, k int) (*manyReport, error) {
	rep := &manyReport{Pods: k}
	self, ctrdPID := os.Getpid(), e.Ctrd.Daemon.PID()
	ns := e.NS("cri-podlife")

	// podlife.
	pods := make([]*podlife.Pod, k)
	c0, m0, d0, o0 := measure.CPUTime(), measure.PIDCPU(self), measure.PIDCPU(ctrdPID), measure.OwnCPU(self)
	all, each, err := atOnce(k, func(i int) error {
		var err error
		pods[i], err = rt.Run(ctx, measure.BenchPod(fmt.Sprintf("many-%d", i)))
		return err
	})
	shims := measure.TreeCPU(podlifetest.ShimPIDs(ns))
	rep.Podlife = manyRun{AllRunningMs: measure.MS(all), PodStart: measure.Summarize(each), MachineCPUMs: measure.MS(measure.CPUTime() - c0),
		ManagerCPUMs: measure.MS(measure.PIDCPU(self) - m0), ManagerOwnCPUMs: measure.MS(measure.OwnCPU(self) - o0),
		ContainerdCPU: measure.MS(measure.PIDCPU(ctrdPID) - d0), ShimsCPUMs: measure.MS(shims)}
	removed, _, rerr := atOnce(k, func(i int) error {
		if pods[i] == nil {
			return nil
		}
		return pods[i].Remove(ctx)
	})
	rep.Podlife.AllRemovedMs = measure.MS(removed)
	if err := errors.Join(err, rerr); err != nil {
		return nil, fmt.Errorf("podlife: %w", err)
	}

	// The CRI plugin.
	cpods := make([]*criPod, k)
	criPID := d.proc.Pid()
	c0, m0 = measure.CPUTime(), measure.PIDCPU(criPID)
	all, each, err = atOnce(k, func(i int) error {
		var err error
		cpods[i], err = d.runCRIPod(ctx, fmt.Sprintf("many-%d", i), fmt.Sprintf("%s-many-%d", e.RunID, i))
		return err
	})
	shims = measure.TreeCPU(podlifetest.Processes("\x00-address\x00" + d.socket + "\x00"))
	rep.CRI = manyRun{AllRunningMs: measure.MS(all), PodStart: measure.Summarize(each), MachineCPUMs: measure.MS(measure.CPUTime() - c0),
		ManagerCPUMs: measure.MS(measure.PIDCPU(criPID) - m0), ShimsCPUMs: measure.MS(shims)}
	removed, _, rerr = atOnce(k, func(i int) error {
		if cpods[i] == nil {
			return nil
		}
		return d.removeCRIPod(ctx, cpods[i])
	})
	rep.CRI.AllRemovedMs = measure.MS(removed)
	if err := errors.Join(err, rerr); err != nil {
		return nil, fmt.Errorf("CRI: %w", err)
	}
	rep.Ratio = rep.Podlife.AllRunningMs / rep.CRI.AllRunningMs
	rep.Stop = rep.Podlife.AllRemovedMs / rep.CRI.AllRemovedMs
	return rep, nil
}

// atOnce runs f(0) ... f(k-1) in k goroutines and returns the time until all returned, each
// one's own time and their errors.
func atOnce(k int, f func(i int) error) (time.Duration, []time.Duration, error) {
	each := make([]time.Duration, k)
	errs := make([]error, k)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range k {
		wg.Go(func() {
			t := time.Now()
			errs[i] = f(i)
			each[i] = time.Since(t)
		})
	}
	wg.Wait()
	return time.Since(t0), each, errors.Join(errs...)
}
