package cri

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// criMemory is the CRI row's memory with pods running: its shims and pauses (PSS, RSS) and the
// growth of containerd's RSS (the CRI plugin, its containers' log copies and its records), each
// per pod, and their sum per pod (the figure beside podlife's).
type criMemory struct {
	Pods                int     `json:"pods"`
	Shims               int     `json:"shims"`
	ShimPSSPerPodMiB    float64 `json:"shim_pss_per_pod_mib"`
	ShimRSSPerPodMiB    float64 `json:"shim_rss_per_pod_mib"`
	Pauses              int     `json:"pauses"`
	PausePSSPerPodMiB   float64 `json:"pause_pss_per_pod_mib"`
	ContainerdMiBPerPod float64 `json:"containerd_mib_per_pod"`
	TotalPerPodMiB      float64 `json:"total_per_pod_mib"`
}

// measureMemory starts k bench pods on the CRI plugin, one after another, reads the memory
// of their shims and pauses and containerd's growth, and removes them.
func (d *criDaemon) measureMemory(ctx context.Context, runID string, k int) (m *criMemory, err error) {
	pid := d.proc.Pid()
	ctrd0 := measure.PIDRSSMiB(pid)
	pods := make([]*criPod, 0, k)
	defer func() {
		for _, p := range pods {
			err = errors.Join(err, d.removeCRIPod(context.WithoutCancel(ctx), p))
		}
	}()
	for i := range k {
		p, err := d.runCRIPod(ctx, fmt.Sprintf("mem-%d", i), fmt.Sprintf("%s-mem-%d", runID, i))
		if p != nil {
			pods = append(pods, p)
		}
		if err != nil {
			return nil, err
		}
	}
	shims := podlifetest.Processes("\x00-address\x00" + d.socket + "\x00")
	var pauses []int
	for _, s := range shims {
		for _, c := range children(s) {
			if isPause(c) {
				pauses = append(pauses, c)
			}
		}
	}
	m = &criMemory{Pods: k, Shims: len(shims), Pauses: len(pauses)}
	pss, rss := measure.ProcMemory(shims)
	m.ShimPSSPerPodMiB, m.ShimRSSPerPodMiB = pss/float64(k), rss/float64(k)
	ppss, _ := measure.ProcMemory(pauses)
	m.PausePSSPerPodMiB = ppss / float64(k)
	m.ContainerdMiBPerPod = max(0, measure.PIDRSSMiB(pid)-ctrd0) / float64(k)
	m.TotalPerPodMiB = m.ShimPSSPerPodMiB + m.PausePSSPerPodMiB + m.ContainerdMiBPerPod
	return m, nil
}

// children lists process pid's children.
func children(pid int) []int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// isPause reports whether pid runs the bench's sandbox image (its /pause, or catatonit).
func isPause(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	arg0, _, _ := strings.Cut(string(b), "\x00")
	return arg0 == "/pause" || strings.Contains(arg0, "catatonit")
}
