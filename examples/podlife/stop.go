package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/podlife"
)

// stopCmd is `stop` (stop the pods, keep them for ps and logs) and `rm` (stop them if they
// run, then remove everything of them), on pods any process manages.
func stopCmd(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	grace := fs.Int("grace-period", -1, "seconds to wait after the stop signal before SIGKILL (default the pod's terminationGracePeriodSeconds)")
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "usage: podlife %s [--grace-period SECONDS] POD...\n", cmd)
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
	code := 0
	for _, name := range fs.Args() {
		pod, err := rt.Pod(name)
		switch {
		case err != nil:
		case cmd == "stop":
			err = pod.Stop(ctx, opts...)
		default:
			err = pod.Remove(ctx, opts...)
		}
		if err != nil {
			code = fail(stderr, cmd, err)
			continue
		}
		verb := "stopped"
		if cmd == "rm" {
			verb = "removed"
		}
		fmt.Fprintf(stdout, "pod/%s %s\n", name, verb)
	}
	return code
}
