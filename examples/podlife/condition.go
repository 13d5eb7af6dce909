package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/podlife/podlife/podlife/conditions"
)

// conditionCmd is `condition POD TYPE=STATUS`: set a pod condition (one a readiness gate names)
// as a controller would, through the pod's managing process.
func conditionCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("condition", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reason := fs.String("reason", "", "the condition's reason")
	message := fs.String("message", "", "the condition's message")
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	typ, status, ok := strings.Cut(fs.Arg(1), "=")
	if fs.NArg() != 2 || !ok {
		fmt.Fprintln(stderr, "usage: podlife condition [--reason REASON] [--message MESSAGE] POD TYPE=True|False|Unknown")
		return 2
	}
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "condition", err)
	}
	defer rt.Close()
	name := fs.Arg(0)
	pod, err := rt.Pod(name)
	if err == nil {
		err = pod.SetCondition(ctx, conditions.Type(typ), conditions.Status(status), *reason, *message)
	}
	if err != nil {
		return fail(stderr, "condition", err)
	}
	fmt.Fprintf(stdout, "pod/%s condition %s=%s\n", name, typ, status)
	return 0
}
