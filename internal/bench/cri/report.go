package cri

import (
	"fmt"
	"io"

	"github.com/podlife/podlife/internal/bench/measure"
)

// Print writes the CRI plugin's rows to w.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\ncontainerd's CRI plugin driven as the kubelet drives it (same containerd binary, runc, image,\n"+
		"seccomp RuntimeDefault + no-new-privileges, bridge CNI; sandbox: %s), iterations\n"+
		"alternating with podlife's, %d each\n\n", r.Pause, r.Iterations)
	row := measure.StatTable(w)
	row("CRI start", r.CRIStart, 0)
	row("podlife start", r.PodlifeStart, r.StartRatio)
	row("CRI start CPU", r.CRIStartCPU, 0)
	row("podlife st. CPU", r.PodlifeStartCPU, 0)
	row("CRI stop", r.CRIStop, 0)
	row("podlife stop", r.PodlifeStop, r.StopRatio)
	fmt.Fprintf(w, "CRI start, medians:")
	for _, name := range criSteps {
		fmt.Fprintf(w, " %s %.1f ms", name, r.CRISteps[name].Median)
	}
	fmt.Fprintf(w, " (CreateContainer and StartContainer: both containers)\n")
	fmt.Fprintf(w, "the CRI row takes %.2fx podlife's time to start and %.2fx to tear down (medians)\n",
		1/r.StartRatio, 1/r.StopRatio)
	if m := r.Memory; m != nil {
		fmt.Fprintf(w, "CRI memory, %d pods: %d shims %.2f MiB PSS (%.2f RSS) per pod, %d pauses %.2f MiB PSS per pod, containerd +%.2f MiB RSS per pod; total %.2f MiB per pod\n",
			m.Pods, m.Shims, m.ShimPSSPerPodMiB, m.ShimRSSPerPodMiB, m.Pauses, m.PausePSSPerPodMiB, m.ContainerdMiBPerPod, m.TotalPerPodMiB)
	}
	if r.Many != nil {
		r.Many.print(w)
	}
	if r.ManyError != "" {
		fmt.Fprintf(w, "\nmany pods at once: not measured: %s\n", r.ManyError)
	}
}

func (m *manyReport) print(w io.Writer) {
	fmt.Fprintf(w, "\n%d bench pods started at once until all run, then removed at once\n\n", m.Pods)
	fmt.Fprintf(w, "%-8s %12s %15s %12s %12s %12s %12s %12s\n", "", "all run ms", "one pod med/max", "removed ms",
		"manager CPU", "containerd", "shims CPU", "machine CPU")
	row := func(name string, r manyRun) {
		ctrd := "(in mgr)"
		if r.ContainerdCPU > 0 {
			ctrd = fmt.Sprintf("%.0f", r.ContainerdCPU)
		}
		fmt.Fprintf(w, "%-8s %12.0f %8.0f/%-6.0f %12.0f %12.0f %12s %12.0f %12.0f\n", name, r.AllRunningMs,
			r.PodStart.Median, r.PodStart.Max, r.AllRemovedMs, r.ManagerCPUMs, ctrd, r.ShimsCPUMs, r.MachineCPUMs)
	}
	row("podlife", m.Podlife)
	row("CRI", m.CRI)
	perPod := func(r manyRun) float64 { return (r.ManagerCPUMs + r.ContainerdCPU + r.ShimsCPUMs) / float64(m.Pods) }
	fmt.Fprintf(w, "the pods' own stack (manager + containerd + shims), CPU per pod started: podlife %.0f ms, CRI %.0f ms\n",
		perPod(m.Podlife), perPod(m.CRI))
	fmt.Fprintf(w, "podlife / CRI: %.2fx until all run (CRI takes %.2fx), %.2fx to remove all (CRI takes %.2fx)\n",
		m.Ratio, 1/m.Ratio, m.Stop, 1/m.Stop)
	if ceil, rest, ok := m.Ceiling(); ok {
		fmt.Fprintf(w, "without podlife's own process (%.0f ms of CPU per pod), podlife's run would still cost %.0f ms of machine CPU per pod\n"+
			"(containerd, shims, runc, runc init, CNI plugins, kernel): the CRI row's %.0f ms is %.2fx that, the most a free manager could reach here\n",
			m.Podlife.ManagerOwnCPUMs/float64(m.Pods), rest, m.CRI.MachineCPUMs/float64(m.Pods), ceil)
	}
}

// Ceiling is, when all pods start at once and the start is CPU-bound (the machine's busy CPU
// is the time until all run times the cores), the most the CRI row's time could be over
// podlife's if podlife's own process cost nothing and everything else of its run (containerd,
// the shims, runc, CNI plugins, the kernel's work) stayed: the CRI phase's machine CPU over
// podlife's phase's, less podlife's own process. rest is that remainder per pod (ms).
func (m *manyReport) Ceiling() (ratio, rest float64, ok bool) {
	r := m.Podlife.MachineCPUMs - m.Podlife.ManagerOwnCPUMs
	if m.Podlife.ManagerOwnCPUMs <= 0 || r <= 0 || m.CRI.MachineCPUMs <= 0 {
		return 0, 0, false
	}
	return m.CRI.MachineCPUMs / r, r / float64(m.Pods), true
}
