package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife"
)

const debugUsage = "usage: podlife debug POD --image IMAGE [--target CONTAINER] [--name NAME] [--image-pull-policy POLICY] [--detach] [-- CMD [ARG...]]"

// debugCmd is `debug POD --image IMAGE [--target C] [--name N] [-- CMD...]` (kubectl debug):
// it adds an ephemeral container to a running pod, whichever process manages it, joining the
// pod's network, IPC and UTS namespaces and, with --target, the PID namespace of that container.
// It is not interactive: it runs CMD (default sh), prints its output as it comes, and exits with
// its exit code once it exited. Ctrl-C stops following; the container goes on until the pod ends.
// With --detach it returns once the container started (`podlife exec -i POD NAME -- sh` then
// gives a shell in it, if CMD keeps it running).
func debugCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("debug", flag.ContinueOnError)
	fs.SetOutput(stderr)
	image := fs.String("image", "", "the debug container's image (required)")
	target := fs.String("target", "", "the container whose processes the debug container sees (its PID namespace)")
	name := fs.String("name", "", "the debug container's name (default debugger-XXXXX)")
	pull := fs.String("image-pull-policy", "", "Always, IfNotPresent or Never (default: Kubernetes' for the image)")
	detach := fs.Bool("detach", false, "return once the container started, without following it")
	c := addCommon(fs)
	// The pod may come before the flags (kubectl's order) or after them.
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(stderr, debugUsage)
		return 2
	}
	pod, rest := rest[0], rest[1:]
	if len(rest) > 0 && rest[0] != "--" && strings.HasPrefix(rest[0], "-") {
		if err := fs.Parse(rest); err != nil {
			return 2
		}
		rest = fs.Args()
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if *image == "" {
		fmt.Fprintln(stderr, "podlife debug: --image is required\n"+debugUsage)
		return 2
	}
	argv := rest
	if len(argv) == 0 {
		argv = []string{"sh"}
	}
	if *name == "" {
		*name = "debugger-" + strings.ToLower(rand.Text()[:5])
		fmt.Fprintf(stderr, "Defaulting debug container name to %s.\n", *name)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rt, err := c.runtime(ctx, stderr)
	if err != nil {
		return fail(stderr, "debug", err)
	}
	defer rt.Close()
	spec := podlife.EphemeralContainerSpec{TargetContainerName: *target, ContainerSpec: podlife.ContainerSpec{
		Name: *name, Image: *image, ImagePullPolicy: podlife.PullPolicy(*pull), Command: argv}}
	if err := rt.AddEphemeralContainer(ctx, pod, spec); err != nil {
		return fail(stderr, "debug", err)
	}
	if *detach {
		fmt.Fprintf(stdout, "pod/%s ephemeral container %s started\n", pod, *name)
		return 0
	}
	code, err := followEphemeral(ctx, rt, pod, *name, func(s string) { fmt.Fprintln(stdout, s) })
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "podlife debug: stopped following; container %s goes on in pod %s (podlife logs -f %s %s)\n", *name, pod, pod, *name)
			return 130
		}
		return fail(stderr, "debug", err)
	}
	fmt.Fprintf(stderr, "container %s exited with code %d\n", *name, code)
	return code
}

// followEphemeral prints the ephemeral container's log until it has exited and returns its exit
// code. The manager writes the pod's status in the background: it is read every 100 ms.
func followEphemeral(ctx context.Context, rt *podlife.Runtime, pod, name string, print func(string)) (int, error) {
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var code int
	var ferr error
	var last string
	go func() {
		defer cancel()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			rec, err := rt.LookupPod(fctx, pod)
			if err != nil {
				ferr = err
				return
			}
			if fs := rec.LogFiles(name); len(fs) > 0 {
				last = fs[len(fs)-1]
			}
			for _, cs := range rec.Status.EphemeralContainerStatuses {
				if t := cs.State.Terminated; cs.Name == name && t != nil {
					code = t.ExitCode
					settle(fctx, last)
					return
				}
			}
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	rec, err := rt.LookupPod(ctx, pod)
	if err != nil {
		return 0, err
	}
	followFiles(fctx, func() string {
		if fs := rec.LogFiles(name); len(fs) > 0 {
			return fs[len(fs)-1]
		}
		return ""
	}, print)
	if ferr == nil && ctx.Err() != nil {
		ferr = ctx.Err()
	}
	return code, ferr
}

// settle waits until the log file at path has not grown for 300 ms (at most 3 s): the manager
// may still be copying the output of a process that has exited.
func settle(ctx context.Context, path string) {
	var size int64 = -1
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		fi, err := os.Stat(path)
		if err != nil || fi.Size() == size {
			return
		}
		size = fi.Size()
		time.Sleep(300 * time.Millisecond)
	}
}
