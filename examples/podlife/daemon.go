package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
)

// daemonCmd is `daemon status` and `daemon stop`: the private containerd of the state dir, which
// the first command that needs it starts and which outlives every command (see
// podlife.EmbeddedConfig).
func daemonCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const usage = "usage: podlife daemon status|stop [--state-dir DIR]"
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("daemon "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := addCommon(fs)
	timeout := fs.Duration("timeout", 30*time.Second, "stop: how long containerd has to exit after SIGTERM before SIGKILL")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	state := c.stateDir
	if state == "" {
		state = podlife.DefaultStateDir
	}
	state, err := filepath.Abs(state)
	if err != nil {
		return fail(stderr, "daemon", err)
	}
	// The layout of podlife.EmbeddedConfig: the private containerd lives in STATE/containerd.
	dir := daemon.PrivateDir(state)
	switch verb {
	case "status":
		info, err := daemon.Lookup(dir)
		if errors.Is(err, daemon.ErrNotRunning) {
			fmt.Fprintf(stdout, "not running (state dir %s)\n", state)
			return 1
		}
		if err != nil {
			return fail(stderr, "daemon status", err)
		}
		fmt.Fprintf(stdout, "running pid %d\naddress %s\nlog %s\n", info.PID, info.Address, info.LogFile)
		return 0
	case "stop":
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		info, _ := daemon.Lookup(dir)
		err := daemon.StopPrivate(ctx, state)
		if errors.Is(err, daemon.ErrNotRunning) {
			fmt.Fprintf(stderr, "no private containerd runs for %s\n", state)
			return 0
		}
		if err != nil {
			return fail(stderr, "daemon stop", err)
		}
		fmt.Fprintf(stdout, "containerd (pid %d) of %s stopped\n", info.PID, state)
		return 0
	}
	fmt.Fprintf(stderr, "podlife daemon: unknown command %q\n%s\n", verb, usage)
	return 2
}
