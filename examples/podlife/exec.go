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

const execUsage = "usage: podlife exec [-i] [-t] POD CONTAINER -- CMD [ARG...]"

// execCmd runs a command in a container of any pod (kubectl exec) and exits with its code.
func execCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	interactive := fs.Bool("i", false, "pass stdin to the command")
	tty := fs.Bool("t", false, "give the command a terminal (with -i: an interactive shell); needs a terminal on stdin")
	c := addCommon(fs)
	if err := fs.Parse(splitShortFlags(args, "it")); err != nil {
		return 2
	}
	rest := fs.Args()
	if len(rest) < 3 {
		fmt.Fprintln(stderr, execUsage)
		return 2
	}
	pod, container, argv := rest[0], rest[1], rest[2:]
	if argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		fmt.Fprintln(stderr, execUsage)
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
	if *tty {
		// kubectl's rule: a TTY needs a terminal on this side; without one, go on without.
		if term := openTerminal(stdin); term == nil {
			fmt.Fprintln(stderr, "Unable to use a TTY - input is not a terminal or the right kind of file")
		} else {
			restore, err := term.raw()
			if err != nil {
				return fail(stderr, "exec", err)
			}
			defer restore()
			streams.TTY = true
			streams.Resize = term.sizes(ctx)
			// In raw mode Ctrl-C is a key for the container, not a signal for this process.
		}
	}
	handle, err := rt.Pod(pod)
	if err != nil {
		return fail(stderr, "exec", err)
	}
	code, err := handle.Exec(ctx, container, argv, streams)
	if err != nil {
		return fail(stderr, "exec", err)
	}
	return code
}
