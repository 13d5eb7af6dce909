package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/podlife/podlife/podlife"
)

// followLogs prints every container's output as "pod/container | line" until ctx is done or the
// pods end, through Pod.Logs (which follows each container across restarts and rotations).
func followLogs(ctx context.Context, rt *podlife.Runtime, pods []*podlife.Pod, print func(string)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, p := range pods {
		for _, name := range containerNames(p) {
			w := lineWriter{prefix: p.Name() + "/" + name + " | ", print: print}
			wg.Go(func() { _ = p.Logs(ctx, name, podlife.LogOptions{Follow: true}, w) })
		}
	}
	return &wg
}

// lineWriter prints each Write (Pod.Logs writes one line per Write) with a prefix.
type lineWriter struct {
	prefix string
	print  func(string)
}

func (w lineWriter) Write(b []byte) (int, error) {
	w.print(w.prefix + strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

func containerNames(p *podlife.Pod) []string {
	spec := p.Spec()
	var names []string
	for _, cs := range [][]podlife.ContainerSpec{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			names = append(names, c.Name)
		}
	}
	return names
}

// logsCmd prints a container's log (kubectl logs) from any process: the current attempt's, or
// the previous one's with --previous; -f follows it across restarts until the pod ends or is
// removed, or Ctrl-C.
func logsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	follow := fs.Bool("f", false, "follow the log")
	previous := fs.Bool("previous", false, "print the log of the container's previous attempt")
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fmt.Fprintln(stderr, "usage: podlife logs [-f] [--previous] POD [CONTAINER]")
		return 2
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "logs", err)
	}
	defer rt.Close()
	pod := fs.Arg(0)
	rec, err := rt.LookupPod(ctx, pod)
	if err != nil {
		return fail(stderr, "logs", err)
	}
	container, err := pickContainer(rec, fs.Arg(1))
	if err != nil {
		return fail(stderr, "logs", err)
	}
	handle, err := rt.Pod(pod)
	if err != nil {
		return fail(stderr, "logs", err)
	}
	err = handle.Logs(ctx, container, podlife.LogOptions{Follow: *follow, Previous: *previous}, stdout)
	if err != nil && ctx.Err() == nil {
		return fail(stderr, "logs", err)
	}
	return 0
}

// pickContainer returns the container named, or the pod's only container if name is empty.
func pickContainer(rec podlife.PodRecord, name string) (string, error) {
	var names []string
	for _, cs := range append(rec.Status.InitContainerStatuses, rec.Status.ContainerStatuses...) {
		names = append(names, cs.Name)
	}
	ephemeral := make([]string, 0, len(rec.Status.EphemeralContainerStatuses))
	for _, cs := range rec.Status.EphemeralContainerStatuses {
		ephemeral = append(ephemeral, cs.Name)
	}
	if name != "" && slices.Contains(ephemeral, name) {
		return name, nil // not a default: `kubectl logs` names an ephemeral container explicitly
	}
	if name == "" {
		if len(names) == 1 {
			return names[0], nil
		}
		return "", fmt.Errorf("a container name must be specified for pod %s, choose one of: %v: %w", rec.Name, names, errUsage)
	}
	if !slices.Contains(names, name) {
		return "", fmt.Errorf("container %s is not valid for pod %s (choose one of: %v): %w", name, rec.Name, names, podlife.ErrNotFound)
	}
	return name, nil
}
