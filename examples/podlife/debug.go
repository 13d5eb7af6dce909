package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"

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

// followEphemeral prints the ephemeral container's log until it has exited (Runtime.Logs
// follows it until then) and returns its exit code, from the pod's status.
func followEphemeral(ctx context.Context, rt *podlife.Runtime, pod, name string, print func(string)) (int, error) {
	if err := rt.Logs(ctx, pod, name, podlife.LogOptions{Follow: true}, lineWriter{print: print}); err != nil {
		return 0, err
	}
	rec, err := rt.LookupPod(ctx, pod)
	if err != nil {
		return 0, err
	}
	for _, cs := range rec.Status.EphemeralContainerStatuses {
		if t := cs.State.Terminated; cs.Name == name && t != nil {
			return t.ExitCode, nil
		}
	}
	return 0, fmt.Errorf("pod %q ended before ephemeral container %q exited", pod, name)
}
