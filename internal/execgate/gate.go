package execgate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// Where the gate's files are in a gated container: under /dev, which runc makes a fresh tmpfs
// for every container, so that the mount points touch neither the image nor a volume.
const (
	// BinaryPath is where the gate program is mounted (read-only) and what the container runs.
	BinaryPath = "/dev/.podlife-execgate"
	// FIFOPath is where the container's FIFO is mounted.
	FIFOPath = "/dev/.podlife-start"
)

// Exit codes of the gate when the command does not run.
const (
	// ExitUsage: the gate was not given `-- command...`.
	ExitUsage = 120
	// ExitManagerGone: podlife's end of the FIFO closed before the start (the process that
	// made the member died); the command never ran.
	ExitManagerGone = 121
	// ExitNotFound: the command could not be resolved (runc's create would have failed).
	ExitNotFound = 127
	// ExitExec: the FIFO could not be read.
	ExitExec = 126
	// ExitExecFailed: executing the command failed once released (a script without "#!", say):
	// runc's init exits so, having written "exec <path>: <error>" to the container's stderr, as
	// the gate does, so that the pod ends as a cold start's would.
	ExitExecFailed = 1
)

// Main is the gate program: args are its arguments (os.Args: the gate, "--", then the
// command), fifo the FIFO it waits on (FIFOPath), stderr where it says why the command did not
// run. It returns only if the command did not run, with the exit code to use.
func Main(args []string, fifo string, stderr io.Writer) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(stderr, "podlife-execgate: usage: podlife-execgate -- command [args...] (run by podlife in a warm pool member's container)")
		return ExitUsage
	}
	argv := args[2:]
	// As runc's init does before it waits to be started: a command that cannot be found fails
	// the member's making, not the pod's start.
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrDot) {
		err = nil
	}
	if err != nil {
		fmt.Fprintf(stderr, "podlife-execgate: %v\n", err)
		return ExitNotFound
	}
	if err := wait(fifo); err != nil {
		fmt.Fprintf(stderr, "podlife-execgate: %v\n", err)
		if errors.Is(err, errManagerGone) {
			return ExitManagerGone
		}
		return ExitExec
	}
	for {
		err = syscall.Exec(path, argv, os.Environ())
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	fmt.Fprintln(stderr, &os.PathError{Op: "exec", Path: path, Err: err}) // runc's words
	return ExitExecFailed
}

var errManagerGone = errors.New("the process that made this pool member went away before starting it")

// wait blocks until podlife writes the start byte to fifo: the open returns once podlife has
// opened the other end (its sign that the gate waits), the read once it writes.
func wait(fifo string) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(fifo, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", fifo, err)
	}
	defer syscall.Close(fd)
	var b [1]byte
	for {
		n, err := syscall.Read(fd, b[:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("read %s: %w", fifo, err)
		case n == 0:
			return errManagerGone
		}
		return nil
	}
}
