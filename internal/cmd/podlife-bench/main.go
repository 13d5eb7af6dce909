// Command podlife-bench measures podlife's pod start, stop and memory against a floor measured
// in the same run on the same containerd: the same two containers created and started one after
// another directly through the containerd client, plus one netns and CNI ADD (and, to stop:
// kill, wait and delete both, CNI DEL, netns removal). It then measures what probes cost (many
// pods with an exec and an httpGet probe each) and how long a start gated on a readiness
// probe (DependsOn ... Ready) waits, what a pause (shareProcessNamespace) adds to a start, and
// how the crun runtime class compares with runc (start, and exec-probe CPU). Beside podlife it
// runs the same pod through containerd's CRI plugin the way the kubelet calls it, on a second
// private containerd of the same binary (one pod at a time, then many at once:
// internal/bench/cri). Off by default, -only probescale,manypods measures 100 pods with httpGet
// or tcpSocket probes and 200 pods started with bounded concurrency (internal/bench/scale).
// -only pool (in the default) measures a start from a warm pool (Runtime.Prewarm) beside the
// cold one, and what a ready member costs (pool.go).
//
// The measurements live in packages under internal/bench (measure: the environment, statistics,
// CPU and memory readings they share; floor, probes, cri, scale, breakdown); this command keeps
// the flags, the wiring, the report and the smaller measurements (times, memory, pool,
// sharedpid, runtimeclass, usage).
//
//	go run ./internal/cmd/podlife-bench --containerd .cache/bin/containerd [-n 10] [--json]
//
// It needs root, runc and the CNI plugins; it starts a private containerd and cleans up after itself.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/bench/breakdown"
	"github.com/podlife/podlife/internal/bench/cri"
	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/bench/probes"
	"github.com/podlife/podlife/internal/bench/scale"
	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/containerlogger"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

func main() {
	bin := flag.String("containerd", "containerd", "containerd binary to benchmark against")
	n := flag.Int("n", 10, "iterations per measurement")
	pods := flag.Int("pods", 5, "pods kept running at once for the memory figures (with cri, on the CRI plugin too)")
	memModes := flag.String("memory-modes", "pod,container", "shim modes of the memory figures (Config.Shims: pod, container)")
	asJSON := flag.Bool("json", false, "print JSON instead of a table")
	probePods := flag.Int("probe-pods", 50, "pods with probes for the probe cost (0: skip it)")
	execPods := flag.Int("probe-exec-pods", 10, "of the probe pods, how many really run their exec probe (each costs ~0.1 s of CPU a second)")
	probeWindow := flag.Duration("probe-window", 15*time.Second, "length of each of the probe cost's four windows")
	gated := flag.Int("gated", 10, "iterations of each dependency-gated start (0: skip it)")
	only := flag.String("only", "times,pool,memory,probes,gated,sharedpid,runtimeclass,cri", "comma-separated measurements to run (runtimeclass needs crun; cri, the kubelet's path, a containerd 2.x; pool after times compares with its cold start; usage and breakdown are not in the default)")
	many := flag.Int("many", 50, "with cri: pods started at once on podlife and on the CRI plugin (0: skip it)")
	usagePods := flag.Int("usage-pods", 20, "pods sampled by the usage measurement")
	usageRounds := flag.Int("usage-rounds", 10, "times the usage measurement samples each pod")
	classPods := flag.Int("runtimeclass-probe-pods", 3, "pods of each runtime class with an exec probe every 100 ms, for runtimeclass (0: skip the probe cost)")
	bridge := flag.String("bridge", "plbench0", "bridge device of the run's pods (another name lets two runs share the machine)")
	subnet := flag.String("subnet", "10.251.0.0/16", "subnet of the run's pods")
	scale := scale.AddFlags()
	perfData := flag.String("breakdown-perf-data", "", "breakdown: keep perf's recording in FILE (perf report -i FILE --sort comm,sym)")
	verbose := flag.Bool("v", false, "log podlife's debug output (step timings) to stderr")
	containerLogger := flag.String("container-logger", "", `containers' logger: "" (podlife-logger, built for the run), "self" (this program re-executed, as the podlife CLI does), "none" (the managing process writes the logs), or a path`)
	if containerlogger.Invoked() {
		containerlogger.Serve() // -container-logger self
	}
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	o := options{containerLogger: *containerLogger, n: *n, pods: *pods, probePods: *probePods, classPods: *classPods, execPods: *execPods, probeWindow: *probeWindow, gated: *gated, many: *many, only: map[string]bool{},
		usagePods: *usagePods, usageRounds: *usageRounds, perfData: *perfData, scale: scale, bridge: *bridge, subnet: *subnet}
	for _, m := range strings.Split(*memModes, ",") {
		o.memModes = append(o.memModes, podlife.ShimMode(strings.TrimSpace(m)))
	}
	for _, m := range strings.Split(*only, ",") {
		m = strings.TrimSpace(m)
		if m != "times" && m != "memory" && m != "probes" && m != "gated" && m != "sharedpid" && m != "runtimeclass" && m != "cri" && m != "probescale" && m != "manypods" && m != "usage" && m != "breakdown" && m != "pool" {
			fmt.Fprintf(os.Stderr, "podlife-bench: -only: unknown measurement %q (times, memory, probes, gated, sharedpid, runtimeclass, cri, probescale, manypods, usage, breakdown, pool)\n", m)
			os.Exit(2)
		}
		o.only[m] = true
	}
	rep, err := run(ctx, *bin, o, logger)
	if err != nil {
		fmt.Fprintln(os.Stderr, "podlife-bench:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	rep.print(os.Stdout)
}

// options says what to measure, and how much.
type options struct {
	containerLogger                                string // the -container-logger flag
	n, pods, probePods, execPods, gated, classPods int
	many                                           int                // pods at once, with cri
	memModes                                       []podlife.ShimMode // shim modes of the memory figures
	probeWindow                                    time.Duration
	usagePods, usageRounds                         int
	only                                           map[string]bool // measurements to run: times, memory, probes, gated, sharedpid, runtimeclass, cri, probescale, manypods, usage
	scale                                          *scale.Options  // probescale and manypods (internal/bench/scale)
	bridge, subnet                                 string          // the pods' bridge and subnet
	perfData                                       string          // breakdown: where to keep perf's recording
}

func run(ctx context.Context, bin string, o options, logger *slog.Logger) (*report, error) {
	dir, err := os.MkdirTemp("", "plb-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctrd, err := podlifetest.StartContainerd(ctx, daemon.Config{Binary: bin, Dir: filepath.Join(dir, "c")})
	if err != nil {
		return nil, err
	}
	defer ctrd.Close()
	version, _ := ctrd.Daemon.Version(ctx)
	subnet, err := netip.ParsePrefix(o.subnet)
	if err != nil {
		return nil, fmt.Errorf("-subnet: %w", err)
	}
	e := &measure.Env{Dir: dir, Ctrd: ctrd, Subnet: subnet, Logger: logger,
		RunID: strings.TrimPrefix(filepath.Base(dir), "plb-")}
	e.Bridge, err = cni.NewBridge(cni.BridgeConfig{Name: "podlife-bench", Bridge: o.bridge, Subnet: e.Subnet,
		StateDir: filepath.Join(dir, "cni"), PluginDirs: cnipath.Dirs("")})
	if err != nil {
		return nil, err
	}
	defer e.Bridge.Destroy(context.WithoutCancel(ctx))
	switch o.containerLogger {
	case "none":
		e.ContainerLogger = ""
	case "self":
		if e.ContainerLogger, err = os.Executable(); err != nil {
			return nil, err
		}
	case "":
		if e.ContainerLogger, err = podlifetest.ContainerLogger(dir); err != nil {
			return nil, err
		}
	default:
		e.ContainerLogger = o.containerLogger
	}
	rep := &report{Containerd: version, ContainerLogger: o.containerLogger}
	if o.only["breakdown"] {
		if rep.Breakdown, err = breakdown.Measure(ctx, e, o.n, o.perfData); err != nil {
			return nil, fmt.Errorf("breakdown: %w", err)
		}
	}
	if o.only["times"] {
		rep.Iterations = o.n
		if err := measureTimes(ctx, e, o.n, rep); err != nil {
			return nil, err
		}
	}
	if o.only["pool"] {
		many := 0
		if o.only["cri"] {
			many = o.many // beside the CRI row's many pods
		}
		if err := measurePool(ctx, e, o.n, o.pods, many, rep); err != nil {
			return nil, fmt.Errorf("pool: %w", err)
		}
	}
	if o.only["memory"] {
		if err := measureMemory(ctx, e, o.pods, o.memModes, rep); err != nil {
			return nil, fmt.Errorf("memory: %w", err)
		}
	}
	if o.only["probes"] && o.probePods > 0 {
		if rep.Probes, err = probes.Measure(ctx, e, o.probePods, o.execPods, o.probeWindow); err != nil {
			return nil, fmt.Errorf("probes: %w", err)
		}
	}
	if o.only["gated"] && o.gated > 0 {
		if rep.Gated, err = probes.MeasureGated(ctx, e, o.gated); err != nil {
			return nil, fmt.Errorf("gated start: %w", err)
		}
	}
	if o.only["sharedpid"] {
		if rep.SharedPID, err = measureSharedPID(ctx, e, o.n); err != nil {
			return nil, fmt.Errorf("shared PID namespace: %w", err)
		}
	}
	if o.only["runtimeclass"] {
		// crun may be missing, or refuse the host's cgroup layout (docs/troubleshooting.md): the
		// other figures stand without it.
		if rep.RuntimeClass, err = measureRuntimeClass(ctx, e, o.n, o.classPods, o.probeWindow); err != nil {
			rep.RuntimeClassError = err.Error()
		}
	}
	if o.only["cri"] {
		// A containerd without the CRI plugin (or 1.x, whose config this bench does not
		// write) leaves the other figures standing.
		memPods := 0
		if o.only["memory"] {
			memPods = o.pods
		}
		if rep.CRI, err = cri.Measure(ctx, e, bin, o.n, o.many, memPods); err != nil {
			rep.CRIError = err.Error()
		}
	}
	if err := measureScale(ctx, e, o, rep); err != nil {
		return nil, err
	}
	if o.only["usage"] {
		if rep.Usage, err = measureUsage(ctx, e, o.usagePods, o.usageRounds); err != nil {
			return nil, fmt.Errorf("usage: %w", err)
		}
	}
	return rep, nil
}

// measureScale runs probescale and manypods if -only asks for them.
func measureScale(ctx context.Context, e *measure.Env, o options, rep *report) error {
	var err error
	if o.only["probescale"] && o.scale.ProbePods > 0 {
		if rep.ProbeScale, err = scale.MeasureProbes(ctx, e, o.scale, o.probeWindow); err != nil {
			return fmt.Errorf("probescale: %w", err)
		}
	}
	if o.only["manypods"] && o.scale.ManyPods > 0 {
		if rep.ManyPods, err = scale.MeasureManyPods(ctx, e, o.scale); err != nil {
			return fmt.Errorf("manypods: %w", err)
		}
	}
	return nil
}
