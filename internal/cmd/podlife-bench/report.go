package main

import (
	"fmt"
	"io"

	"github.com/podlife/podlife/internal/bench/breakdown"
	"github.com/podlife/podlife/internal/bench/cri"
	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/bench/probes"
	"github.com/podlife/podlife/internal/bench/scale"
)

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
	Containerd            string                `json:"containerd"`
	ContainerLogger       string                `json:"container_logger"`
	Iterations            int                   `json:"iterations"`
	FloorStart            measure.Stat          `json:"floor_start"`
	PodlifeStart          measure.Stat          `json:"podlife_start"`
	StartRatio            float64               `json:"start_ratio"`
	FloorStartCPU         measure.Stat          `json:"floor_start_cpu"`
	PodlifeStartCPU       measure.Stat          `json:"podlife_start_cpu"`
	FloorStop             measure.Stat          `json:"floor_stop"`
	PodlifeStop           measure.Stat          `json:"podlife_stop"`
	StopRatio             float64               `json:"stop_ratio"`
	Pods                  int                   `json:"memory_pods"`
	ProcessRSSMiB         float64               `json:"process_rss_mib"`
	ProcessRSSWithPodsMiB float64               `json:"process_rss_with_pods_mib"`
	ManagerKiBPerPod      float64               `json:"manager_kib_per_pod"`
	ShimModes             []shimReport          `json:"shim_modes"`
	Probes                *probes.Report        `json:"probes,omitempty"`
	Gated                 *probes.GatedReport   `json:"gated_start,omitempty"`
	SharedPID             *sharedPIDReport      `json:"shared_pid,omitempty"`
	RuntimeClass          *runtimeClassReport   `json:"runtime_class,omitempty"`
	RuntimeClassError     string                `json:"runtime_class_error,omitempty"`
	CRI                   *cri.Report           `json:"cri,omitempty"`
	Breakdown             *breakdown.Report     `json:"breakdown,omitempty"`
	CRIError              string                `json:"cri_error,omitempty"`
	ProbeScale            *scale.ProbesReport   `json:"probe_scale,omitempty"`
	ManyPods              *scale.ManyPodsReport `json:"many_pods,omitempty"`
	Usage                 *usageReport          `json:"usage,omitempty"`
	Pool                  *poolReport           `json:"pool,omitempty"`
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "containerd %s\n", r.Containerd)
	if r.Breakdown != nil {
		r.Breakdown.Print(w)
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
		r.Probes.Print(w)
	}
	if r.Gated != nil {
		r.Gated.Print(w)
	}
	if r.SharedPID != nil {
		r.SharedPID.print(w)
	}
	if r.RuntimeClass != nil {
		r.RuntimeClass.print(w)
	}
	if r.ProbeScale != nil {
		r.ProbeScale.Print(w)
	}
	if r.ManyPods != nil {
		r.ManyPods.Print(w)
	}
	if r.RuntimeClassError != "" {
		fmt.Fprintf(w, "\nruntimeClassName crun: not measured: %s\n", r.RuntimeClassError)
	}
	if r.CRI != nil {
		r.CRI.Print(w)
	}
	if r.Pool != nil && r.Pool.ManyGate != nil {
		r.Pool.ManyGate.print(w, r.CRI)
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
	row := measure.StatTable(w)
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
