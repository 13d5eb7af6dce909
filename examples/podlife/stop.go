package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/podlife/podlife/podlife"
)

// defaultParallel is how many pods `stop` and `rm` act on at once: the kubelet's default
// --max-pods (110), so that every pod a node may hold is stopped in one wave, as long as its
// slowest pod's grace period and not the sum of them. A stop spends its grace period waiting,
// not working; the bound only keeps a mistaken `rm $(seq 10000)` from opening thousands of
// containerd and control-socket connections at once.
const defaultParallel = 110

// stopCmd is `stop` (stop the pods, keep them for ps and logs) and `rm` (stop them if they
// run, then remove everything of them), on pods any process manages. The pods are stopped
// concurrently, at most --parallel at a time; each one's outcome is printed as it comes (a
// line on stdout, or the error on stderr), one failure stops none of the others, and the exit
// code is 0 only if every pod was stopped (removed).
func stopCmd(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	grace := fs.Int("grace-period", -1, "seconds to wait after the stop signal before SIGKILL (default the pod's terminationGracePeriodSeconds)")
	parallel := fs.Int("parallel", defaultParallel, "pods stopped at once (at least 1)")
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *parallel < 1 {
		fmt.Fprintf(stderr, "usage: podlife %s [--grace-period SECONDS] [--parallel N] POD...\n", cmd)
		return 2
	}
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	defer rt.Close()
	var opts []podlife.StopOption
	if *grace >= 0 {
		opts = append(opts, podlife.WithGracePeriod(time.Duration(*grace)*time.Second))
	}
	verb := "stopped"
	if cmd == "rm" {
		verb = "removed"
	}
	var mu sync.Mutex // the pods' outcomes are printed as they come
	failed := false
	forEach(ctx, *parallel, uniq(fs.Args()), func(ctx context.Context, name string) {
		pod, err := rt.Pod(name)
		switch {
		case err != nil:
		case cmd == "stop":
			err = pod.Stop(ctx, opts...)
		default:
			err = pod.Remove(ctx, opts...)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed = true
			fail(stderr, cmd, err)
			return
		}
		fmt.Fprintf(stdout, "pod/%s %s\n", name, verb)
	})
	if failed {
		return 1
	}
	return 0
}

// forEach calls do for every item (a pod or its name), at most limit at a time, and returns
// once every call returned. A call's failure is do's to report: it cancels none of the others.
func forEach[T any](ctx context.Context, limit int, items []T, do func(context.Context, T)) {
	var g errgroup.Group
	g.SetLimit(limit)
	for _, item := range items {
		g.Go(func() error {
			do(ctx, item)
			return nil
		})
	}
	_ = g.Wait()
}

// uniq returns names without repeats, in the order of their first occurrence: the same pod
// named twice is stopped once.
func uniq(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
