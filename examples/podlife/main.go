// Command podlife runs Kubernetes Pod manifests on this host with podlife, in the foreground,
// like `docker compose up`:
//
//	go run ./examples/podlife run -f pod.yaml [-f configmap.yaml] [-o json] [--timeline start.svg]
//
// It prints the pod's events and a kubectl-like READY/STATUS/RESTARTS/AGE line whenever it
// changes, stops the pods gracefully (preStop, grace period) on Ctrl-C or SIGTERM, and exits 0
// if every pod succeeded, 1 otherwise. It needs root; it uses the system containerd if one
// answers, else starts a private one. Every manifest field podlife cannot honour is reported
// (--strict makes warnings errors).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podlifetest"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "run" {
		fmt.Fprintln(os.Stderr, "usage: podlife run -f FILE [-f FILE ...] [--strict] [-o json] [--logs] [--timeline FILE.svg] [--import ARCHIVE] [--busybox REF] [--state-dir DIR]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[2:], os.Stdout, os.Stderr))
}

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(s string) error { *f = append(*f, s); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var manifests, imports files
	fs.Var(&manifests, "f", "manifest file (YAML or JSON; repeatable)")
	fs.Var(&imports, "import", "image archive to import first (repeatable; offline hosts)")
	strict := fs.Bool("strict", false, "fail on fields podlife cannot honour instead of warning")
	output := fs.String("o", "", `output format: "" (text) or "json" (events as JSON lines, final statuses as JSON)`)
	timeline := fs.String("timeline", "", "write an SVG timeline of the start sequence to this file")
	logs := fs.Bool("logs", false, `stream the containers' output, each line prefixed with "pod/container | "`)
	stateDir := fs.String("state-dir", "", "podlife state directory (default /var/lib/podlife)")
	busybox := fs.String("busybox", "", "build an image from the host's busybox-static and import it under this name (e.g. podlife.local/busybox:1)")
	bridge := fs.String("bridge", "", "bridge device of the pod network (default podlife0)")
	subnet := fs.String("subnet", "", "pod subnet (default 10.88.0.0/16)")
	verbose := fs.Bool("v", false, "log podlife's debug output to stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if len(manifests) == 0 {
		fmt.Fprintln(stderr, "podlife run: -f FILE is required")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	res, err := kube.LoadFiles(ctx, kube.Options{Strict: *strict}, manifests...)
	if err != nil {
		fmt.Fprintln(stderr, "podlife run:", err)
		return 1
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg := podlife.Config{StateDir: *stateDir, Logger: logger}
	cfg.Bridge.Bridge = *bridge
	if *subnet != "" {
		if cfg.Bridge.Subnet, err = netip.ParsePrefix(*subnet); err != nil {
			fmt.Fprintln(stderr, "podlife run: --subnet:", err)
			return 2
		}
	}
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "podlife run:", err)
		return 1
	}
	defer rt.Close()
	if *busybox != "" {
		var buf bytes.Buffer
		if err := podlifetest.BusyboxArchive(&buf, *busybox); err != nil {
			fmt.Fprintln(stderr, "podlife run: busybox image:", err)
			return 1
		}
		if _, err := rt.ImportImage(ctx, &buf); err != nil {
			fmt.Fprintln(stderr, "podlife run:", err)
			return 1
		}
	}
	for _, path := range imports {
		if err := importArchive(ctx, rt, path); err != nil {
			fmt.Fprintln(stderr, "podlife run:", err)
			return 1
		}
	}
	out := &printer{w: stdout, json: *output == "json"}
	evCtx, stopEvents := context.WithCancel(context.Background())
	var evWG sync.WaitGroup
	evWG.Go(func() {
		for e := range rt.Subscribe(evCtx) {
			out.event(e)
		}
	})
	var pods []*podlife.Pod
	for _, p := range res.Pods {
		pod, err := rt.Run(ctx, p.Spec)
		if err != nil {
			fmt.Fprintln(stderr, "podlife run:", err)
			break
		}
		pods = append(pods, pod)
	}
	logCtx, stopLogs := context.WithCancel(context.Background())
	var logWG *sync.WaitGroup
	if *logs {
		logWG = followLogs(logCtx, pods, out.log)
	}
	supervise(ctx, pods, out)
	code := 0
	// Stop gracefully (Ctrl-C, or the pods ended), then remove everything.
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, p := range pods {
		if err := p.Stop(rctx); err != nil {
			fmt.Fprintln(stderr, "podlife run: stop:", err)
		}
	}
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
	for _, p := range pods {
		if err := p.Remove(rctx); err != nil {
			fmt.Fprintln(stderr, "podlife run: remove:", err)
		}
	}
	stopEvents()
	evWG.Wait()
	out.final(statuses)
	if len(pods) < len(res.Pods) {
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

func importArchive(ctx context.Context, rt *podlife.Runtime, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	names, err := rt.ImportImage(ctx, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "imported %s\n", strings.Join(names, ", "))
	return nil
}

// printer writes events and status lines, as text or JSON lines.
type printer struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
	last map[string]string
}

func (p *printer) event(e podlife.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		_ = json.NewEncoder(p.w).Encode(e)
		return
	}
	fmt.Fprintln(p.w, e)
}

func (p *printer) log(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		_ = json.NewEncoder(p.w).Encode(map[string]string{"kind": "Log", "line": line})
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *printer) status(st podlife.PodStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		return
	}
	ready, total := st.ReadyCount()
	restarts := 0
	for _, c := range append(st.InitContainerStatuses, st.ContainerStatuses...) {
		restarts += c.RestartCount
	}
	line := fmt.Sprintf("%-24s %-6s %-20s %-9d", st.Name, fmt.Sprintf("%d/%d", ready, total), st.Display(), restarts)
	if p.last == nil {
		p.last = map[string]string{}
	}
	if p.last[st.Name] == line {
		return
	}
	if len(p.last) == 0 {
		fmt.Fprintf(p.w, "%-24s %-6s %-20s %-9s %s\n", "NAME", "READY", "STATUS", "RESTARTS", "AGE")
	}
	p.last[st.Name] = line
	fmt.Fprintf(p.w, "%s %s\n", line, time.Since(st.StartTime).Truncate(time.Second))
}

func (p *printer) final(sts []podlife.PodStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.json {
		for _, st := range sts {
			fmt.Fprintf(p.w, "pod %s: %s\n", st.Name, st.Phase)
		}
		return
	}
	for _, st := range sts {
		if err := json.NewEncoder(p.w).Encode(map[string]any{"kind": "PodStatus", "status": st}); err != nil {
			fmt.Fprintln(os.Stderr, errors.Unwrap(err))
		}
	}
}
