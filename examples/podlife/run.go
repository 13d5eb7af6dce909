package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(s string) error { *f = append(*f, s); return nil }

// supervisorEnv marks the background process of `run --detach`; fd 3 is then a pipe on which
// it tells its parent whether the pods started.
const supervisorEnv = "PODLIFE_CLI_SUPERVISOR"

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var manifests, imports files
	fs.Var(&manifests, "f", "manifest file (YAML or JSON; repeatable)")
	fs.Var(&imports, "import", "image archive to import first (repeatable; offline hosts)")
	strict := fs.Bool("strict", false, "fail on fields podlife cannot honour instead of warning")
	output := fs.String("o", "", `output format: "" (text) or "json" (events as JSON lines, final statuses as JSON)`)
	timeline := fs.String("timeline", "", "write an SVG timeline of the start sequence to this file")
	logs := fs.Bool("logs", false, `stream the containers' output, each line prefixed with "pod/container | "`)
	busybox := fs.String("busybox", "", "build an image from the host's busybox-static and import it under this name (e.g. podlife.local/busybox:1)")
	detach := fs.Bool("detach", false, "start the pods, leave them supervised by a background podlife process, and return")
	backoff := fs.Duration("restart-backoff", 0, "initial crash-loop back-off (default the kubelet's 10s)")
	pullBackoff := fs.Duration("image-pull-backoff", 10*time.Second, "initial back-off between failed image pulls, doubling up to 300s, as the kubelet retries them; 0 fails at the first failed pull")
	evictPeriod := fs.Duration("eviction-period", 0, "how often pods with an emptyDir sizeLimit or an ephemeral-storage limit are measured, and evicted above it (default the kubelet's 10s; negative: never)")
	nodefs := fs.String("eviction-nodefs-available", "", `refuse new pods while the state dir's filesystem has less available: "10%" (default, the kubelet's), a quantity ("500Mi"), or "0%" (never)`)
	replace := fs.Bool("replace", false, "a pod of the manifest that exists with another spec is stopped and removed, then run anew (without it, the run fails naming what differs)")
	shims := fs.String("shims", "", `runc shims: "pod" (one per pod, the default), "container" (one per container) or "shared" (dense mode: up to -pods-per-shim pods per shim; a shim that dies takes down the containers of all its pods, which restart per their restart policy)`)
	podsPerShim := fs.Int("pods-per-shim", 0, `with -shims shared, pods per shim (0: 10)`)
	containerLogger := fs.String("container-logger", "", `the program containerd's shims run beside each container to write its output: "" (podlife-logger beside this program or in PATH, else this program), a path (such as podlife-logger's), or "none" (this process writes the logs: a chatty container blocks once this process is gone)`)
	c := addCommon(fs)
	sec := addSecurityFlags(fs)
	rcs := addRuntimeClassFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	classes, err := rcs.classes()
	if err != nil {
		fmt.Fprintln(stderr, "podlife run:", err)
		return 2
	}
	if len(manifests) == 0 {
		fmt.Fprintln(stderr, "podlife run: -f FILE is required")
		return 2
	}
	// The supervisor never detaches again, whatever its arguments say: a --detach that reached
	// it would start another supervisor, which would start another, without end.
	if *detach && os.Getenv(supervisorEnv) == "" {
		return startSupervisor(supervisorArgs(fs), c, stdout, stderr)
	}
	var report *os.File // the supervisor's pipe to its parent
	if os.Getenv(supervisorEnv) != "" {
		// Close-on-exec: a private containerd this process may start must not inherit the pipe,
		// or it would hold it open for the parent after this process ended.
		syscall.CloseOnExec(3)
		report = os.NewFile(3, "report")
	}
	reportf := func(format string, a ...any) {
		if report != nil {
			fmt.Fprintf(report, format, a...)
			report.Close()
			report = nil
		}
	}
	defer reportf("error: the supervisor ended before the pods started\n")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := kube.LoadFiles(ctx, kube.Options{Strict: *strict}, manifests...)
	if err != nil {
		reportf("error: %v\n", err)
		return fail(stderr, "run", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	rt, err := c.runtime(ctx, stderr, func(cfg *podlife.Config) {
		sec.apply(cfg)
		cfg.RuntimeClasses = classes
		if *backoff > 0 {
			cfg.Backoff.Initial = *backoff
		}
		if *pullBackoff > 0 {
			cfg.ImagePullBackOff = &podlife.Backoff{Initial: *pullBackoff}
		}
		cfg.Eviction = podlife.Eviction{Period: *evictPeriod, NodefsAvailable: *nodefs}
		cfg.Shims, cfg.PodsPerShim = podlife.ShimMode(*shims), *podsPerShim
		switch *containerLogger {
		case "": // this program (see main and common.runtime)
		case "none":
			cfg.ContainerLogger = ""
		default:
			cfg.ContainerLogger, _ = filepath.Abs(*containerLogger)
		}
	})
	if err != nil {
		reportf("error: %v\n", err)
		return fail(stderr, "run", err)
	}
	defer rt.Close()
	if err := c.saveNetwork(); err != nil {
		fmt.Fprintln(stderr, "podlife run: warning:", err)
	}
	if *busybox != "" {
		var buf bytes.Buffer
		if err := podlifetest.BusyboxArchive(&buf, *busybox); err != nil {
			reportf("error: busybox image: %v\n", err)
			return fail(stderr, "run", fmt.Errorf("busybox image: %w", err))
		}
		if _, err := rt.ImportImage(ctx, &buf); err != nil {
			reportf("error: %v\n", err)
			return fail(stderr, "run", err)
		}
	}
	for _, path := range imports {
		if err := importArchive(ctx, rt, path, stderr); err != nil {
			reportf("error: %v\n", err)
			return fail(stderr, "run", err)
		}
	}
	out := &printer{w: stdout, json: *output == "json"}
	evCtx, stopEvents := context.WithCancel(context.Background())
	var evWG sync.WaitGroup
	removed := make(chan struct{}, 64)
	evWG.Go(func() {
		for e := range rt.Subscribe(evCtx) {
			out.event(e)
			if e.Reason == reasons.Removed {
				select {
				case removed <- struct{}{}:
				default:
				}
			}
		}
	})
	// The manifest's pods start at once: a pod waiting for its image (back-off) or its probes
	// holds no other. Each failure is reported; the pods that started are kept in manifest order.
	started := make([]*podlife.Pod, len(res.Pods))
	errs := make([]error, len(res.Pods))
	var startWG sync.WaitGroup
	var noteMu sync.Mutex // the starts run at once; stderr may be any writer
	note := func(format string, a ...any) {
		noteMu.Lock()
		defer noteMu.Unlock()
		fmt.Fprintf(stderr, format, a...)
	}
	for i, p := range res.Pods {
		startWG.Go(func() { started[i], errs[i] = runOrAdopt(ctx, rt, p.Spec, *replace, note) })
	}
	startWG.Wait()
	var pods []*podlife.Pod
	for i, err := range errs {
		if err != nil {
			fmt.Fprintln(stderr, "podlife run:", err)
			continue
		}
		pods = append(pods, started[i])
	}
	runErr := errors.Join(errs...)
	if runErr != nil {
		reportf("error: %s\n", strings.ReplaceAll(runErr.Error(), "\n", "; "))
	} else {
		names := make([]string, len(pods))
		for i, p := range pods {
			names[i] = p.Name()
		}
		reportf("ok %s\n", strings.Join(names, " "))
	}
	logCtx, stopLogs := context.WithCancel(context.Background())
	var logWG *sync.WaitGroup
	if *logs {
		logWG = followLogs(logCtx, rt, pods, out.log)
	}
	if os.Getenv(supervisorEnv) != "" && runErr == nil {
		// Detached: the pods stay, ended or not, until `podlife rm` removes them (or SIGTERM).
		superviseDetached(ctx, rt, removed, out)
	} else {
		supervise(ctx, pods, out)
	}
	code := 0
	// Stop gracefully (Ctrl-C, or the pods ended), then remove everything.
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The pods stop and are removed concurrently (see stopCmd): as long as the slowest one's
	// grace period, not the sum of them.
	pods = rt.Pods()
	forEach(rctx, defaultParallel, pods, func(ctx context.Context, p *podlife.Pod) {
		if err := p.Stop(ctx); err != nil {
			note("podlife run: stop: %v\n", err)
		}
	})
	statuses := make([]podlife.PodStatus, len(pods))
	for i, p := range pods {
		statuses[i] = p.Status()
		if statuses[i].Phase != podlife.PhaseSucceeded {
			code = 1
		}
	}
	if *timeline != "" && len(pods) > 0 {
		if err := writeTimeline(*timeline, pods[0]); err != nil {
			fmt.Fprintln(stderr, "podlife run: timeline:", err)
		}
	}
	stopLogs()
	if logWG != nil {
		logWG.Wait()
	}
	forEach(rctx, defaultParallel, pods, func(ctx context.Context, p *podlife.Pod) {
		if err := p.Remove(ctx); err != nil {
			note("podlife run: remove: %v\n", err)
		}
	})
	stopEvents()
	evWG.Wait()
	out.final(statuses)
	if runErr != nil {
		return 1
	}
	return code
}

// supervise prints status lines until every pod ended or ctx is done (Ctrl-C). Either way the
// pods are then stopped gracefully, and the exit code is their outcome.
func supervise(ctx context.Context, pods []*podlife.Pod, out *printer) {
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Go(func() {
			_, _ = p.WaitFor(ctx, func(st podlife.PodStatus) bool {
				out.status(st)
				return st.Phase == podlife.PhaseSucceeded || st.Phase == podlife.PhaseFailed
			})
		})
	}
	wg.Wait()
}

// superviseDetached keeps the background supervisor alive until ctx is done (SIGTERM) or its
// pods were removed (`podlife rm` from another process). The private containerd, if it is the
// one in use, outlives the supervisor: it belongs to the state dir (`podlife daemon stop`).
func superviseDetached(ctx context.Context, rt *podlife.Runtime, removed <-chan struct{}, out *printer) {
	for len(rt.Pods()) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-removed:
		}
	}
}

// startSupervisor runs `run` again as a background process (its own session, output to a log
// file in the state dir) and returns once it says whether the pods started.
func startSupervisor(child []string, c *common, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		return fail(stderr, "run", err)
	}
	logPath := c.stateFile(fmt.Sprintf("run-%d.log", time.Now().UnixNano()))
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(stderr, "run", err)
	}
	defer logFile.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(stderr, "run", err)
	}
	defer pr.Close()
	proc, err := os.StartProcess(self, append([]string{self, "run"}, child...), &os.ProcAttr{
		Env:   append(os.Environ(), supervisorEnv+"=1"),
		Files: []*os.File{nil, logFile, logFile, pw},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	pw.Close()
	if err != nil {
		return fail(stderr, "run", err)
	}
	line, _ := bufio.NewReader(pr).ReadString('\n')
	line = strings.TrimSpace(line)
	if names, ok := strings.CutPrefix(line, "ok "); ok {
		fmt.Fprintf(stderr, "supervised by pid %d; its log: %s\n", proc.Pid, logPath)
		_ = proc.Release()
		for _, n := range strings.Fields(names) {
			fmt.Fprintf(stdout, "pod/%s started\n", n)
		}
		return 0
	}
	_, _ = proc.Wait()
	msg := strings.TrimPrefix(line, "error: ")
	if msg == "" {
		msg = "the supervisor exited"
	}
	b, _ := os.ReadFile(logPath)
	return fail(stderr, "run", fmt.Errorf("%s\n%s", msg, lastLines(b, 20)))
}

// supervisorArgs rebuilds the arguments of the background supervisor from the flags parsed in
// fs, every one set except -detach, each as -name=value (a repeatable flag once per value). The
// flag package parsed them, so every spelling of -detach (-detach=1, --detach=TRUE, ...) is
// gone, and no value is taken for a flag.
func supervisorArgs(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "detach" {
			return
		}
		if v, ok := f.Value.(*files); ok {
			for _, s := range *v {
				out = append(out, "-"+f.Name+"="+s)
			}
			return
		}
		out = append(out, "-"+f.Name+"="+f.Value.String())
	})
	return out
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func importArchive(ctx context.Context, rt *podlife.Runtime, path string, stderr io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	names, err := rt.ImportImage(ctx, f)
	if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	if len(names) == 0 {
		return fmt.Errorf("import %s: %w", path, errors.New("no image in the archive"))
	}
	fmt.Fprintf(stderr, "imported %s\n", strings.Join(names, ", "))
	return nil
}
