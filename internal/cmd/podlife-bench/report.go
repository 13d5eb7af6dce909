package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// stat is a distribution in milliseconds.
type stat struct {
	Median float64 `json:"median_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
}

func summarize(ds []time.Duration) stat {
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = math.Round(float64(d.Microseconds())/100) / 10
	}
	slices.Sort(ms)
	if len(ms) == 0 {
		return stat{}
	}
	med := ms[len(ms)/2]
	if len(ms)%2 == 0 {
		med = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
	}
	return stat{Median: med, Min: ms[0], Max: ms[len(ms)-1]}
}

type shimReport struct {
	Mode         string  `json:"mode"`
	Shims        int     `json:"shims"`
	PSSPerPodMiB float64 `json:"pss_per_pod_mib"`
	RSSPerPodMiB float64 `json:"rss_per_pod_mib"`
	// The container loggers (one per container, children of the shims): how many, and the
	// PSS and RSS of one.
	Loggers      int     `json:"loggers"`
	LoggerPSSMiB float64 `json:"logger_pss_mib"`
	LoggerRSSMiB float64 `json:"logger_rss_mib"`
	// The growth per pod of the managing process's RSS and of its containerd's, settled
	// (after a collection in this process), and the sum per pod of everything podlife adds:
	// shims, loggers and both growths (the figure beside the CRI row's).
	ManagerMiBPerPod    float64 `json:"manager_mib_per_pod"`
	ContainerdMiBPerPod float64 `json:"containerd_mib_per_pod"`
	TotalPerPodMiB      float64 `json:"total_per_pod_mib"`
}

type report struct {
	Containerd            string              `json:"containerd"`
	ContainerLogger       string              `json:"container_logger"`
	Iterations            int                 `json:"iterations"`
	FloorStart            stat                `json:"floor_start"`
	PodlifeStart          stat                `json:"podlife_start"`
	StartRatio            float64             `json:"start_ratio"`
	FloorStartCPU         stat                `json:"floor_start_cpu"`
	PodlifeStartCPU       stat                `json:"podlife_start_cpu"`
	FloorStop             stat                `json:"floor_stop"`
	PodlifeStop           stat                `json:"podlife_stop"`
	StopRatio             float64             `json:"stop_ratio"`
	Pods                  int                 `json:"memory_pods"`
	ProcessRSSMiB         float64             `json:"process_rss_mib"`
	ProcessRSSWithPodsMiB float64             `json:"process_rss_with_pods_mib"`
	ManagerKiBPerPod      float64             `json:"manager_kib_per_pod"`
	ShimModes             []shimReport        `json:"shim_modes"`
	Probes                *probeReport        `json:"probes,omitempty"`
	Gated                 *gatedReport        `json:"gated_start,omitempty"`
	SharedPID             *sharedPIDReport    `json:"shared_pid,omitempty"`
	RuntimeClass          *runtimeClassReport `json:"runtime_class,omitempty"`
	RuntimeClassError     string              `json:"runtime_class_error,omitempty"`
	CRI                   *criReport          `json:"cri,omitempty"`
	Breakdown             *breakdownReport    `json:"breakdown,omitempty"`
	CRIError              string              `json:"cri_error,omitempty"`
	ProbeScale            *probeScaleReport   `json:"probe_scale,omitempty"`
	ManyPods              *manyPodsReport     `json:"many_pods,omitempty"`
	Usage                 *usageReport        `json:"usage,omitempty"`
	Pool                  *poolReport         `json:"pool,omitempty"`
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "containerd %s\n", r.Containerd)
	if r.Breakdown != nil {
		r.Breakdown.print(w)
	}
	if r.Iterations > 0 {
		r.printTimes(w)
	}
	if r.Pool != nil {
		r.Pool.print(w)
	}
	if r.Pods > 0 {
		r.printMemory(w)
	}
	if r.Probes != nil {
		r.Probes.print(w)
	}
	if r.Gated != nil {
		r.Gated.print(w)
	}
	if r.SharedPID != nil {
		r.SharedPID.print(w)
	}
	if r.RuntimeClass != nil {
		r.RuntimeClass.print(w)
	}
	if r.ProbeScale != nil {
		r.ProbeScale.print(w)
	}
	if r.ManyPods != nil {
		r.ManyPods.print(w)
	}
	if r.RuntimeClassError != "" {
		fmt.Fprintf(w, "\nruntimeClassName crun: not measured: %s\n", r.RuntimeClassError)
	}
	if r.CRI != nil {
		r.CRI.print(w)
	}
	if r.CRIError != "" {
		fmt.Fprintf(w, "\ncontainerd's CRI plugin: not measured: %s\n", r.CRIError)
	}
	if r.Usage != nil {
		r.Usage.print(w)
	}
}

func (r *report) printTimes(w io.Writer) {
	fmt.Fprintf(w, "\n2-container busybox pod, bridge network, image present, %d iterations\n\n", r.Iterations)
	row := statTable(w)
	row("floor start", r.FloorStart, 0)
	row("podlife start", r.PodlifeStart, r.StartRatio)
	row("floor start CPU", r.FloorStartCPU, 0)
	row("podlife st. CPU", r.PodlifeStartCPU, 0)
	row("floor stop", r.FloorStop, 0)
	row("podlife stop", r.PodlifeStop, r.StopRatio)
}

func (r *report) printMemory(w io.Writer) {
	fmt.Fprintf(w, "\nmanaging process RSS: %.1f MiB idle, %.1f MiB with %d pods (%.0f KiB per pod)\n",
		r.ProcessRSSMiB, r.ProcessRSSWithPodsMiB, r.Pods, r.ManagerKiBPerPod)
	for _, m := range r.ShimModes {
		fmt.Fprintf(w, "shims %-9s: %d shims for %d pods, %.2f MiB PSS and %.2f MiB RSS per pod\n", m.Mode, m.Shims, r.Pods, m.PSSPerPodMiB, m.RSSPerPodMiB)
		if m.Loggers > 0 {
			fmt.Fprintf(w, "  container loggers (%q): %d, %.2f MiB PSS and %.2f MiB RSS each\n", r.ContainerLogger, m.Loggers, m.LoggerPSSMiB, m.LoggerRSSMiB)
		}
		fmt.Fprintf(w, "  per pod: manager +%.2f MiB RSS, its containerd +%.2f MiB RSS; total with shims and loggers %.2f MiB\n",
			m.ManagerMiBPerPod, m.ContainerdMiBPerPod, m.TotalPerPodMiB)
	}
}

// rssMiB is this process's resident set.
func rssMiB() float64 {
	return statusKiB("/proc/self/status", "VmRSS:") / 1024
}

// settledRSSMiB is this process's resident set after a collection that returns free memory to
// the OS: what it keeps, without the garbage and the free heap an earlier measurement left.
func settledRSSMiB() float64 {
	debug.FreeOSMemory()
	return rssMiB()
}

func statusKiB(path, key string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key) {
			f := strings.Fields(line)
			if len(f) >= 2 {
				v, _ := strconv.ParseFloat(f[1], 64)
				return v
			}
		}
	}
	return 0
}

// loggerMemory sums PSS and RSS (MiB) of the container loggers writing under stateDir.
func loggerMemory(stateDir string) (n int, pss, rss float64) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		// A logger of one container ("--podlife-log-file <path>"), or the shared logger of
		// the state dir ("--podlife-log-daemon <dir>").
		perContainer := slices.Index(args, "--podlife-log-file")
		shared := slices.Index(args, "--podlife-log-daemon")
		if (perContainer < 0 || perContainer+1 >= len(args) || !strings.HasPrefix(args[perContainer+1], stateDir+"/")) &&
			(shared < 0 || shared+1 >= len(args) || filepath.Clean(args[shared+1]) != filepath.Clean(stateDir)) {
			continue
		}
		dir := filepath.Dir(p)
		n++
		pss += statusKiB(filepath.Join(dir, "smaps_rollup"), "Pss:") / 1024
		rss += statusKiB(filepath.Join(dir, "smaps_rollup"), "Rss:") / 1024
	}
	return n, pss, rss
}

// shimMemory sums PSS and RSS (MiB) of the runc shims serving containerd namespace ns.
func shimMemory(ns string) (n int, pss, rss float64) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) == 0 || !strings.Contains(args[0], "containerd-shim-runc-v2") || !slices.Contains(args, ns) {
			continue
		}
		dir := filepath.Dir(p)
		n++
		pss += statusKiB(filepath.Join(dir, "smaps_rollup"), "Pss:") / 1024
		rss += statusKiB(filepath.Join(dir, "smaps_rollup"), "Rss:") / 1024
	}
	return n, pss, rss
}

// procMemory sums PSS and RSS (MiB) of the processes pids.
func procMemory(pids []int) (pss, rss float64) {
	for _, pid := range pids {
		f := fmt.Sprintf("/proc/%d/smaps_rollup", pid)
		pss += statusKiB(f, "Pss:") / 1024
		rss += statusKiB(f, "Rss:") / 1024
	}
	return pss, rss
}

// pidRSSMiB is process pid's resident set.
func pidRSSMiB(pid int) float64 {
	return statusKiB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") / 1024
}

// statTable prints the header of a table of timings (median, min, max, ratio) and returns the
// function that prints one row; a ratio of 0 is left blank.
func statTable(w io.Writer) func(name string, s stat, ratio float64) {
	fmt.Fprintf(w, "%-16s %10s %10s %10s %8s\n", "", "median ms", "min ms", "max ms", "ratio")
	return func(name string, s stat, ratio float64) {
		rs := ""
		if ratio > 0 {
			rs = fmt.Sprintf("%.2fx", ratio)
		}
		fmt.Fprintf(w, "%-16s %10.1f %10.1f %10.1f %8s\n", name, s.Median, s.Min, s.Max, rs)
	}
}
