// Command podlife-soak runs many run/stop/remove cycles of one pod that mixes init containers,
// a sidecar, postStart and preStop hooks and readiness and liveness probes, alternating the
// Sequential and Parallel start policies, in one process and with one Runtime against a private
// containerd, and checks that nothing grew: it counts netns, veths, IPAM files, iptables rules,
// mounts, containerd objects, shims, loggers, pod cgroups, and its own fds and goroutines before
// and after the cycles, prints a table, and exits non-zero on any growth (or a failed cycle).
//
//	go run ./internal/cmd/podlife-soak --containerd .cache/bin/containerd [-n 1000]
//
// It needs root, runc and the CNI plugins, and cleans up after itself, including its
// containerd namespace's cgroup directories (containerd never removes them). `make soak`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/startpolicy"
)

const image = "podlife.soak/busybox:1"

// maxFailures ends the soak early: past it, the cycles fail for a reason the table will not
// explain.
const maxFailures = 10

func main() {
	bin := flag.String("containerd", "containerd", "containerd binary to run privately")
	n := flag.Int("n", 1000, "run/stop/remove cycles (alternating Sequential and Parallel)")
	logger := flag.String("container-logger", "", "podlife-logger binary (default: $PODLIFE_TEST_LOGGER, else built for the run)")
	progress := flag.Int("progress", 100, "print a line every this many cycles (0: never)")
	verbose := flag.Bool("v", false, "log podlife's debug output to stderr")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if err := run(ctx, options{containerd: *bin, n: *n, logger: *logger, progress: *progress, log: log}, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "podlife-soak:", err)
		os.Exit(1)
	}
}

type options struct {
	containerd, logger string
	n, progress        int
	log                *slog.Logger
}

// env is the soak's world: its directory, private containerd, bridge and Runtime.
type env struct {
	dir, stateDir, ipamDir, cniCache string
	ns                               string
	bridgeName, netName              string
	subnet                           netip.Prefix
	logger                           string
	client                           *client.Client
	rt                               *podlife.Runtime
}

func run(ctx context.Context, o options, out io.Writer) (err error) {
	dir, err := os.MkdirTemp("", "pls-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	id := strings.TrimPrefix(filepath.Base(dir), "pls-")
	e := &env{dir: dir, stateDir: filepath.Join(dir, "state"), ns: "pls-" + id,
		bridgeName: "plsk" + tail(id, 8), netName: "podlife-soak-" + id, subnet: netip.MustParsePrefix("10.252.0.0/16")}
	cniDir := filepath.Join(dir, "cni")
	e.ipamDir, e.cniCache = filepath.Join(cniDir, "ipam"), filepath.Join(cniDir, "cache")
	// The logger runs from a path of this run only, so that its processes are told from other
	// programs'.
	src := o.logger
	if src == "" {
		if src, err = podlifetest.ContainerLogger(dir); err != nil {
			return err
		}
	}
	e.logger = filepath.Join(dir, "soak-logger")
	if err := copyFile(src, e.logger); err != nil {
		return fmt.Errorf("container logger: %w", err)
	}
	ctrd, err := podlifetest.StartContainerd(ctx, daemon.Config{Binary: o.containerd, Dir: filepath.Join(dir, "c")})
	if err != nil {
		return err
	}
	defer ctrd.Close()
	e.client = ctrd.Client
	bridge, err := cni.NewBridge(cni.BridgeConfig{Name: e.netName, Bridge: e.bridgeName, Subnet: e.subnet,
		StateDir: cniDir, PluginDirs: cnipath.Dirs("")})
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		err = errors.Join(err, bridge.Destroy(cctx))
	}()
	defer func() {
		// After the Runtime's Close: every pod was removed, so the namespace's cgroups are empty.
		err = errors.Join(err, removeNamespaceCgroups(e.ns))
	}()
	e.rt, err = podlife.New(ctx, podlife.Config{Address: ctrd.Daemon.Address(), Namespace: e.ns, StateDir: e.stateDir,
		Network: bridge, Logger: o.log, ContainerLogger: e.logger})
	if err != nil {
		return err
	}
	defer e.rt.Close()
	if err := importBusybox(ctx, e.rt); err != nil {
		return err
	}
	return e.soak(ctx, o, out)
}

// soak runs a warm-up cycle of each policy (first-use costs: the bridge, the image's snapshots,
// the Runtime's lazy parts), counts, runs the cycles, counts again and prints the table.
func (e *env) soak(ctx context.Context, o options, out io.Writer) error {
	policies := []struct {
		name string
		p    startpolicy.Policy
	}{{"Sequential", startpolicy.Sequential()}, {"Parallel", startpolicy.Parallel(0)}}
	for i, p := range policies {
		if err := e.cycle(ctx, fmt.Sprintf("soak-warm-%d", i), p.p, nil); err != nil {
			return fmt.Errorf("warm-up (%s): %w", p.name, err)
		}
	}
	cs := e.counters()
	before, errs := settled(ctx, cs, nil)
	if len(errs) > 0 {
		return fmt.Errorf("counting: %w", errors.Join(errs...))
	}
	// One count while a pod runs shows that the counters see a pod's objects at all.
	var during []int
	onReady := func() { during, _ = snapshot(ctx, cs) }
	start := time.Now()
	var failures []error
	done := 0
	for i := 0; i < o.n && ctx.Err() == nil && len(failures) < maxFailures; i++ {
		p := policies[i%2]
		if err := e.cycle(ctx, fmt.Sprintf("soak-%d", i), p.p, onReady); err != nil {
			failures = append(failures, fmt.Errorf("cycle %d (%s): %w", i, p.name, err))
		}
		done++
		onReady = nil
		if o.progress > 0 && done%o.progress == 0 {
			fmt.Fprintf(out, "%d cycles, %s, %d failed\n", done, time.Since(start).Round(time.Second), len(failures))
		}
	}
	elapsed := time.Since(start)
	after, errs := settled(ctx, cs, before)
	fmt.Fprintf(out, "\n%d cycles (%d Sequential, %d Parallel) in %s (%s a cycle), %d failed\n\n", done, (done+1)/2, done/2,
		elapsed.Round(time.Second), (elapsed / time.Duration(max(done, 1))).Round(time.Millisecond), len(failures))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	if during == nil {
		during = make([]int, len(cs))
	}
	fmt.Fprintln(tw, "resource\tbefore\tone pod up\tafter\tgrowth\t")
	for i, c := range cs {
		name := c.name
		if !c.scoped {
			name += " [info]"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%+d\t\n", name, before[i], during[i], after[i], after[i]-before[i])
	}
	_ = tw.Flush()
	var problems []error
	problems = append(problems, failures...)
	problems = append(problems, errs...)
	if g := grown(cs, before, after); len(g) > 0 {
		problems = append(problems, fmt.Errorf("grew: %s", strings.Join(g, ", ")))
	}
	if ctx.Err() != nil {
		problems = append(problems, ctx.Err())
	}
	return errors.Join(problems...)
}

// settled counts until no scoped counter is above before (or 15 s passed): goroutines and fds
// of the last cycle may take a moment to end. With before nil it counts twice and keeps the
// second count.
func settled(ctx context.Context, cs []counter, before []int) ([]int, []error) {
	deadline := time.Now().Add(15 * time.Second)
	for {
		time.Sleep(500 * time.Millisecond)
		now, errs := snapshot(ctx, cs)
		if before == nil || len(errs) > 0 || len(grown(cs, before, now)) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return now, errs
		}
	}
}

// cycle runs the pod, waits until it is ready (the probes ran), calls onReady if set, stops it
// (preStop) and removes it.
func (e *env) cycle(ctx context.Context, name string, policy startpolicy.Policy, onReady func()) (err error) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	pod, err := e.rt.Run(cctx, soakPod(name, policy))
	if err != nil {
		if p, perr := e.rt.Pod(name); perr == nil {
			err = errors.Join(err, p.Remove(context.WithoutCancel(cctx)))
		}
		return fmt.Errorf("run: %w", err)
	}
	defer func() {
		if rerr := pod.Remove(context.WithoutCancel(cctx)); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove: %w", rerr))
		}
	}()
	if err := pod.WaitReady(cctx); err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	if onReady != nil {
		onReady()
	}
	if err := pod.Stop(cctx); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

func importBusybox(ctx context.Context, rt *podlife.Runtime) error {
	r, w := io.Pipe()
	go func() { w.CloseWithError(podlifetest.BusyboxArchive(w, image)) }()
	_, err := rt.ImportImage(ctx, r)
	_ = r.Close()
	return err
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
