package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife"
)

// followLogs prints every container's output as "pod/container | line" until ctx is done, then
// drains what was written. It follows the CRI log file of each attempt, moving to the next
// attempt's file after a restart. (Log files are written by the managing process; a follower
// polls them like tail -F.)
func followLogs(ctx context.Context, pods []*podlife.Pod, print func(string)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, p := range pods {
		for _, name := range containerNames(p) {
			c, err := p.Container(name)
			if err != nil {
				continue
			}
			prefix := p.Name() + "/" + name + " | "
			wg.Go(func() { followFiles(ctx, c.LogPath, func(s string) { print(prefix + s) }) })
		}
	}
	return &wg
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

// followFiles prints the lines of the log file current names, moving to the next file when
// current changes (a restart's new attempt) or the file was rotated (a new file under the same
// name), until ctx is done; then it drains what was written.
func followFiles(ctx context.Context, current func() string, print func(string)) {
	var path string
	var f *os.File
	var pending []byte // the start of a line still being written
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		done := ctx.Err() != nil
		if cur := current(); cur != "" && (cur != path || rotated(f, cur)) {
			if f != nil {
				pending = drain(f, pending, print)
				f.Close()
			}
			var err error
			if f, err = os.Open(cur); err != nil {
				f = nil
			} else {
				path, pending = cur, nil
			}
		}
		if f != nil {
			pending = drain(f, pending, print)
		}
		if done {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
}

// rotated reports whether the file at path is no longer f (it was renamed aside, and a new
// one started).
func rotated(f *os.File, path string) bool {
	if f == nil {
		return false
	}
	open, err1 := f.Stat()
	now, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && !os.SameFile(open, now)
}

// drain prints the complete lines written since the last call and returns what is left of an
// incomplete one.
func drain(f *os.File, pending []byte, print func(string)) []byte {
	b, _ := io.ReadAll(f)
	pending = append(pending, b...)
	for {
		i := bytes.IndexByte(pending, '\n')
		if i < 0 {
			return pending
		}
		if l, ok := podlife.ParseLogLine(pending[:i]); ok {
			print(l.Text)
		}
		pending = pending[i+1:]
	}
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
	print := func(s string) { fmt.Fprintln(stdout, s) }
	files := rec.LogFiles(container)
	switch {
	case *previous:
		if len(files) < 2 {
			return fail(stderr, "logs", fmt.Errorf("previous terminated container %q in pod %q not found", container, pod))
		}
		printFile(files[len(files)-2], print)
	case !*follow:
		if len(files) > 0 {
			printFile(files[len(files)-1], print)
		}
	default:
		fctx, cancel := context.WithCancel(ctx)
		go func() {
			defer cancel()
			for fctx.Err() == nil {
				rec, err := rt.LookupPod(fctx, pod)
				if err != nil || rec.Status.Phase == podlife.PhaseSucceeded || rec.Status.Phase == podlife.PhaseFailed {
					return
				}
				select {
				case <-fctx.Done():
				case <-time.After(500 * time.Millisecond):
				}
			}
		}()
		followFiles(fctx, func() string {
			if fs := rec.LogFiles(container); len(fs) > 0 {
				return fs[len(fs)-1]
			}
			return ""
		}, print)
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

func printFile(path string, print func(string)) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	drain(f, nil, print)
}
