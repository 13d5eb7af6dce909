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

const debugUsage = "usage: podlife debug POD --image IMAGE [-i] [-t] [--target CONTAINER] [--name NAME] [--image-pull-policy POLICY] [--detach] [-- CMD [ARG...]]"

// debugCmd is `debug POD --image IMAGE [--target C] [--name N] [-- CMD...]` (kubectl debug):
// it adds an ephemeral container to a running pod, whichever process manages it, joining the
// pod's network, IPC and UTS namespaces and, with --target, the PID namespace of that container.
// Without -i it runs CMD (default sh), prints its output as it comes, and exits with its exit
// code once it exited; Ctrl-C stops following and the container goes on until the pod ends.
// With -i (and -t for a terminal: `debug -it POD --image busybox`) the container's stdin and
// output are attached to this terminal, as kubectl debug -it does; its end ends the container's
// stdin. With --detach it returns once the container started.
func debugCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("debug", flag.ContinueOnError)
	fs.SetOutput(stderr)
	image := fs.String("image", "", "the debug container's image (required)")
	target := fs.String("target", "", "the container whose processes the debug container sees (its PID namespace)")
	name := fs.String("name", "", "the debug container's name (default debugger-XXXXX)")
	pull := fs.String("image-pull-policy", "", "Always, IfNotPresent or Never (default: Kubernetes' for the image)")
	detach := fs.Bool("detach", false, "return once the container started, without following it")
	interactive := fs.Bool("i", false, "keep the container's stdin open and attach this one to it (kubectl debug -i)")
	tty := fs.Bool("t", false, "give the container a terminal (with -i; needs a terminal on stdin)")
	c := addCommon(fs)
	// The pod may come before the flags (kubectl's order) or after them.
	args = splitShortFlags(args, "it")
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
	var term *terminal
	if *tty {
		// kubectl's rule: a TTY needs a terminal on this side (and -i to be of use).
		if term = openTerminal(stdin); term == nil || !*interactive {
			fmt.Fprintln(stderr, "Unable to use a TTY - input is not a terminal or the right kind of file")
			*tty, term = false, nil
		}
	}
	spec := podlife.EphemeralContainerSpec{TargetContainerName: *target, Stdin: *interactive, TTY: *tty,
		ContainerSpec: podlife.ContainerSpec{Name: *name, Image: *image, ImagePullPolicy: podlife.PullPolicy(*pull), Command: argv}}
	handle, err := rt.Pod(pod)
	if err != nil {
		return fail(stderr, "debug", err)
	}
	if _, err := handle.AddEphemeralContainer(ctx, spec); err != nil {
		return fail(stderr, "debug", err)
	}
	if *detach {
		fmt.Fprintf(stdout, "pod/%s ephemeral container %s started\n", pod, *name)
		return 0
	}
	if *interactive {
		return attachEphemeral(ctx, handle, *name, term, stdin, stdout, stderr)
	}
	code, err := followEphemeral(ctx, rt, handle, *name, func(s string) { fmt.Fprintln(stdout, s) })
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

// followEphemeral prints the ephemeral container's log until it has exited (Pod.Logs follows
// it until then) and returns its exit code, from the pod's status.
func followEphemeral(ctx context.Context, rt *podlife.Runtime, pod *podlife.Pod, name string, print func(string)) (int, error) {
	if err := pod.Logs(ctx, name, podlife.LogOptions{Follow: true}, lineWriter{print: print}); err != nil {
		return 0, err
	}
	rec, err := rt.LookupPod(ctx, pod.Name())
	if err != nil {
		return 0, err
	}
	for _, cs := range rec.Status.EphemeralContainerStatuses {
		if t := cs.State.Terminated; cs.Name == name && t != nil {
			return t.ExitCode, nil
		}
	}
	return 0, fmt.Errorf("pod %q ended before ephemeral container %q exited", pod.Name(), name)
}

// attachEphemeral attaches this process's stdin and output to the interactive ephemeral
// container name (on term, in raw mode, if it has a terminal) until its process exits, and
// returns its exit code.
func attachEphemeral(ctx context.Context, pod *podlife.Pod, name string, term *terminal, stdin io.Reader, stdout, stderr io.Writer) int {
	streams := podlife.ExecIO{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if term != nil {
		restore, err := term.raw()
		if err != nil {
			return fail(stderr, "debug", err)
		}
		defer restore()
		streams.TTY = true
		streams.Resize = term.sizes(ctx)
		// What it printed before this attach is in the FIFO; a prompt shown earlier is not
		// printed again (kubectl says the same).
		fmt.Fprint(stderr, "If you don't see a command prompt, try pressing enter.\r\n")
	}
	code, err := pod.Attach(ctx, name, streams)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "podlife debug: detached; container %s goes on in pod %s\n", name, pod.Name())
			return 130
		}
		return fail(stderr, "debug", err)
	}
	return code
}
