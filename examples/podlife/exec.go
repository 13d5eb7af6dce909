package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/podlife/podlife/podlife"
)

// execCmd runs a command in a container of any pod (kubectl exec) and exits with its code.
func execCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	interactive := fs.Bool("i", false, "pass stdin to the command")
	c := addCommon(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if len(rest) < 3 {
		fmt.Fprintln(stderr, "usage: podlife exec [-i] POD CONTAINER -- CMD [ARG...]")
		return 2
	}
	pod, container, argv := rest[0], rest[1], rest[2:]
	if argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "usage: podlife exec [-i] POD CONTAINER -- CMD [ARG...]")
		return 2
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "exec", err)
	}
	defer rt.Close()
	streams := podlife.ExecIO{Stdout: stdout, Stderr: stderr}
	if *interactive {
		streams.Stdin = stdin
	}
	code, err := rt.Exec(ctx, pod, container, argv, streams)
	if err != nil {
		return fail(stderr, "exec", err)
	}
	return code
}
