// Command startup-sequence reproduces the experiment of the article podlife grew from: in a pod
// whose first container has a long postStart hook, the second container does not start until
// the hook has finished; with the order reversed, both start at once.
//
// It runs the same two-container pod twice (order 1: container1 with the hook first; order 2:
// reversed), prints kubectl-like READY/STATUS lines as they change, the log both containers
// write into a shared emptyDir, and a timeline of the start sequence from podlife's events.
//
//	go run ./examples/startup-sequence            # the article's times (30 s hook), ~2.5 min
//	go run ./examples/startup-sequence --short    # 3 s hook, ~20 s
//	go run ./examples/startup-sequence --policy parallel
//
// It needs root. It uses the system containerd if one answers, else starts a private one.
package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/kubectl"
	"github.com/podlife/podlife/internal/podwatch"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/podlife/startpolicy"
)

const localImage = "podlife.local/busybox:1"

func main() {
	short := flag.Bool("short", false, "scale the article's times down (3 s postStart instead of 30 s)")
	image := flag.String("image", "", "image to run (default: a busybox image built locally from busybox-static)")
	policy := flag.String("policy", "sequential", "start policy: sequential (the kubelet's) or parallel")
	stateDir := flag.String("state-dir", "", "podlife state directory (default /var/lib/podlife)")
	verbose := flag.Bool("v", false, "log podlife's debug output to stderr")
	containerLogger := flag.String("container-logger", "", "absolute path of podlife-logger, which writes the containers' logs beside their shims (default: this program writes them)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *short, *image, *policy, *stateDir, *containerLogger, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "startup-sequence:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, short bool, image, policy, stateDir, containerLogger string, verbose bool) error {
	logger := slog.New(slog.DiscardHandler)
	if verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg := podlife.Config{StateDir: stateDir, Logger: logger, ContainerLogger: containerLogger}
	// `make demo` builds the CNI plugins pinned in go.mod and names their directory here; unset,
	// the plugins are looked up in /opt/cni/bin, /usr/lib/cni and /usr/libexec/cni.
	cfg.Bridge.PluginDirs = filepath.SplitList(os.Getenv("PODLIFE_CNI_PATH"))
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		return err
	}
	// A containerd older than 2.0 (a distribution's 1.x service, or its binary first in PATH):
	// warned about on stderr, with what to install.
	warn := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	addr := podlife.DefaultAddress
	if rt.PrivateDaemon() {
		addr = daemon.Address(daemon.PrivateDir(cmp.Or(stateDir, podlife.DefaultStateDir)))
	}
	_ = daemon.WarnUnsupported(ctx, warn, addr)
	if rt.PrivateDaemon() {
		// A private containerd belongs to the state dir and outlives this program: a demo
		// leaves none behind, unless other pods still use it (then it says so).
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := daemon.StopPrivate(sctx, stateDir); err != nil {
				fmt.Fprintln(os.Stderr, "startup-sequence: the private containerd keeps running:", err)
			}
		}()
	}
	defer rt.Close()
	if image == "" {
		var buf bytes.Buffer
		if err := podlifetest.BusyboxArchive(&buf, localImage); err != nil {
			return fmt.Errorf("build the busybox image: %w", err)
		}
		if _, err := rt.ImportImage(ctx, &buf); err != nil {
			return err
		}
		image = localImage
	}
	hookSeconds, mainSeconds := 30, 60
	if short {
		hookSeconds, mainSeconds = 3, 6
	}
	var sp startpolicy.Policy
	switch policy {
	case "sequential":
		sp = startpolicy.Sequential()
	case "parallel":
		sp = startpolicy.Parallel(0)
	default:
		return fmt.Errorf("--policy: unknown policy %q (sequential, parallel)", policy)
	}
	for i, order := range [][2]string{{"container1", "container2"}, {"container2", "container1"}} {
		fmt.Printf("\n=== order %d: %s first ===\n", i+1, order[0])
		spec := SeedPod(fmt.Sprintf("startup-sequence-%d", i+1), image, hookSeconds, mainSeconds, sp)
		if order[0] == "container2" {
			spec.Containers[0], spec.Containers[1] = spec.Containers[1], spec.Containers[0]
		}
		if err := experiment(ctx, rt, spec, time.Duration(hookSeconds+3)*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// SeedPod is the article's pod: container1 logs every second and has a postStart hook that logs
// every second for hookSeconds; container2 only logs. Both write to one shared emptyDir file.
func SeedPod(name, image string, hookSeconds, mainSeconds int, sp startpolicy.Policy) podlife.PodSpec {
	const dir = "/var/log/startup-sequence-test"
	loop := func(who string, n int) string {
		return fmt.Sprintf(`for i in $(seq %d); do echo "$(date): %s" >> %s/message; sleep 1; done`, n, who, dir)
	}
	grace := 2 * time.Second
	mount := []podlife.VolumeMount{{Name: "log-volume", MountPath: dir}}
	return podlife.PodSpec{
		Name:                   name,
		StartPolicy:            sp,
		TerminationGracePeriod: &grace,
		Volumes:                []podlife.Volume{{Name: "log-volume", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{
			{
				Name: "container1", Image: image, VolumeMounts: mount,
				Args:      []string{"/bin/sh", "-c", loop("container1 / main", mainSeconds) + "\ntail -f /dev/null"},
				PostStart: hook.Exec("/bin/sh", "-c", loop("container1 / post start hook", hookSeconds)),
			},
			{
				Name: "container2", Image: image, VolumeMounts: mount,
				Args: []string{"/bin/sh", "-c", loop("container2 / main", mainSeconds) + "\ntail -f /dev/null"},
			},
		},
	}
}

func experiment(ctx context.Context, rt *podlife.Runtime, spec podlife.PodSpec, watchFor time.Duration) error {
	pod, runErr, err := podwatch.Run(ctx, rt, spec)
	if err != nil {
		return err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := pod.Remove(rctx); err != nil {
			fmt.Fprintln(os.Stderr, "remove:", err)
		}
	}()
	watchCtx, cancel := context.WithTimeout(ctx, watchFor)
	defer cancel()
	fmt.Printf("%-22s %-6s %-18s %-9s %s\n", "NAME", "READY", "STATUS", "RESTARTS", "AGE")
	last := ""
	_, _ = pod.WaitFor(watchCtx, func(st podlife.PodStatus) bool {
		ready, total := st.ReadyCount()
		line := fmt.Sprintf("%-22s %-6s %-18s %-9d", st.Name, fmt.Sprintf("%d/%d", ready, total), kubectl.Status(st), 0)
		if line != last {
			fmt.Printf("%s %s\n", line, age(st.StartTime))
			last = line
		}
		return false
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := <-runErr; err != nil {
		return err
	}
	var out bytes.Buffer
	code, err := pod.Exec(ctx, "container2", []string{"cat", "/var/log/startup-sequence-test/message"},
		podlife.ExecIO{Stdout: &out, Stderr: os.Stderr})
	if err == nil && code != 0 {
		err = fmt.Errorf("cat the shared file: exit code %d", code)
	}
	if err != nil {
		return err
	}
	msg := out.Bytes()
	fmt.Printf("\n--- /var/log/startup-sequence-test/message (first lines) ---\n")
	lines := strings.Split(strings.TrimSpace(string(msg)), "\n")
	if len(lines) > 14 {
		lines = append(lines[:12], "...", lines[len(lines)-1])
	}
	fmt.Println(strings.Join(lines, "\n"))
	fmt.Printf("\n--- timeline (from podlife events) ---\n")
	printTimeline(pod)
	return nil
}

func age(start time.Time) string {
	return time.Since(start).Truncate(time.Second).String()
}

// printTimeline shows when each container was created, started and finished its postStart hook,
// relative to the pod's start, with a bar per container.
func printTimeline(pod *podlife.Pod) {
	t0 := pod.Status().StartTime
	for _, e := range pod.Events() {
		switch e.Reason {
		case reasons.SandboxReady, reasons.Created, reasons.Started,
			reasons.PostStartCompleted, reasons.FailedPostStartHook:
		default:
			continue
		}
		at := e.Time.Sub(t0)
		who := e.Container
		if who == "" {
			who = "pod"
		}
		bar := strings.Repeat("·", int(at/(250*time.Millisecond)))
		fmt.Printf("%8.3fs  %-11s %-24s %s▶\n", at.Seconds(), who, e.Reason, bar)
	}
}
