package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/podlife"
)

// top shows what pods use, in `kubectl top pod`'s shape: CPU in millicores (the rate between
// two samples --window apart) and memory as the working set (what the kubelet evicts on), per
// pod or with --containers per container. Pods with no running container are left out, as
// metrics-server leaves them out.
func top(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("top", flag.ContinueOnError)
	fs.SetOutput(stderr)
	containers := fs.Bool("containers", false, "show each container's usage")
	window := fs.Duration("window", time.Second, "time between the two samples the CPU rate is taken over")
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 || *window <= 0 {
		fmt.Fprintln(stderr, "usage: podlife top [POD] [--containers] [--window DURATION]")
		return 2
	}
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "top", err)
	}
	defer rt.Close()
	// One pod: its handle's Usage (an error if it is gone). Every pod: Runtime.Usage, which
	// lists the containers once for all of them.
	sample := rt.Usage
	if name := fs.Arg(0); name != "" {
		p, err := rt.Pod(name)
		if err != nil {
			return fail(stderr, "top", err)
		}
		sample = func(ctx context.Context) ([]podlife.PodUsage, error) {
			u, err := p.Usage(ctx)
			return []podlife.PodUsage{u}, err
		}
	}
	first, err := sample(ctx)
	if err != nil {
		return fail(stderr, "top", err)
	}
	before := make(map[string]podlife.PodUsage, len(first)) // by pod UID
	for _, u := range first {
		before[u.UID] = u
	}
	select {
	case <-ctx.Done():
		return fail(stderr, "top", ctx.Err())
	case <-time.After(*window):
	}
	second, err := sample(ctx)
	if err != nil {
		return fail(stderr, "top", err)
	}
	if *containers {
		fmt.Fprintf(stdout, "%-24s %-20s %-12s %s\n", "POD", "NAME", "CPU(cores)", "MEMORY(bytes)")
	} else {
		fmt.Fprintf(stdout, "%-24s %-12s %s\n", "NAME", "CPU(cores)", "MEMORY(bytes)")
	}
	for _, u := range second {
		if len(u.Containers) == 0 {
			continue
		}
		var podCores float64
		for _, cu := range u.Containers {
			cores := 0.0
			if prev, ok := before[u.UID].Container(cu.Name); ok {
				cores, _ = podlife.CPURate(prev, cu)
			}
			podCores += cores
			if *containers {
				fmt.Fprintf(stdout, "%-24s %-20s %-12s %s\n", u.Name, cu.Name, millicores(cores), mebibytes(cu.MemoryWorkingSet))
			}
		}
		if !*containers {
			fmt.Fprintf(stdout, "%-24s %-12s %s\n", u.Name, millicores(podCores), mebibytes(u.MemoryWorkingSet()))
		}
	}
	return 0
}

// millicores prints a CPU rate as kubectl top does: "250m".
func millicores(cores float64) string { return fmt.Sprintf("%dm", int64(cores*1000+0.5)) }

// mebibytes prints a size as kubectl top does: "64Mi".
func mebibytes(b uint64) string { return fmt.Sprintf("%dMi", b>>20) }
