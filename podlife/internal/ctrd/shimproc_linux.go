package ctrd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ShimProcess is the process of a shim, held by a pidfd (a pid reused meanwhile is not
// mistaken for it). A runc create the shim runs is its child and dies with it (runc's parent
// death signal): once the shim is gone, no create of its tasks is still in flight.
type ShimProcess struct {
	fd  int
	pid int
	id  string
}

// FindShims finds and holds the shim processes of containerd namespace ns started for one of
// ids: a shim's command line names its namespace and, as -id, the task whose NewTask started
// it (with shims grouped, the group's first task). It finds what asking a socket cannot: a
// shim that does not answer, such as one whose start was cut by its client's death (containerd
// gave up on it and removed its bundle before opening the log FIFO the shim opens for writing
// before it serves, so it waits for a reader forever, its socket listening).
func FindShims(ns string, ids []string) []*ShimProcess {
	var out []*ShimProcess
	names, _ := readDirNames("/proc")
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || !maybeShim(pid) {
			continue
		}
		id, ok := shimOf(pid, ns, ids)
		if !ok {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone
		}
		if again, ok := shimOf(pid, ns, ids); !ok || again != id {
			_ = unix.Close(fd) // the PID is another process's now
			continue
		}
		out = append(out, &ShimProcess{fd: fd, pid: pid, id: id})
	}
	return out
}

// readDirNames lists dir's entries, unsorted.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// maybeShim reports whether process pid may be a shim, from its command name (comm), which is
// far cheaper to read than its command line (reading /proc/PID/cmdline reads the process's
// memory): FindShims reads the command line of the candidates only. comm is the first 15
// bytes of the executed file's base name, so a base name that contains "containerd-shim"
// either starts with it (comm is "containerd-shim") or is longer than 15 bytes (comm has 15);
// a binary started through /proc/self/exe is called "exe". A process that cannot be read is a
// candidate, so that shimOf decides.
func maybeShim(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return true
	}
	comm := strings.TrimSuffix(string(b), "\n")
	return len(comm) >= 15 || comm == "exe" || strings.Contains(comm, "containerd-shim")
}

// shimOf reports whether pid is a shim daemon of namespace ns started for one of ids, and
// which: its command line is "<…containerd-shim…> … -namespace <ns> … -id <id> …" without an
// action (start, delete) at the end.
func shimOf(pid int, ns string, ids []string) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "", false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if !strings.Contains(filepath.Base(args[0]), "containerd-shim") || flag(args, "-namespace") != ns {
		return "", false
	}
	if last := args[len(args)-1]; last == "start" || last == "delete" {
		return "", false
	}
	id := flag(args, "-id")
	return id, id != "" && slices.Contains(ids, id)
}

// flag is the value after name in args ("" if none).
func flag(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// PID is the shim's process ID.
func (s *ShimProcess) PID() int { return s.pid }

// ID is the task the shim was started for (its -id).
func (s *ShimProcess) ID() string { return s.id }

// Wait returns once the shim process has exited, or with ctx's error.
func (s *ShimProcess) Wait(ctx context.Context) error {
	for {
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 100) // ms: a bound on each wait, to look at ctx
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("wait for the shim: %w", err)
		}
		if n > 0 {
			return nil // the pidfd is readable: the process exited
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// Exited reports whether the shim process has exited, without waiting.
func (s *ShimProcess) Exited() bool {
	fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// Kill ends a shim that would not exit and what it would leave behind: its children first (the
// processes of the tasks it serves, `runc init` of a container created and never started,
// their loggers: none of them dies with the shim), then the shim. It is the last resort of a
// caller that has deleted every task it knows the shim serves; Wait then sees the exit.
func (s *ShimProcess) Kill() error {
	var errs []error
	for _, pid := range children(s.pid) {
		if err := unix.Kill(pid, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, fmt.Errorf("kill the shim's child %d: %w", pid, err))
		}
	}
	if err := unix.PidfdSendSignal(s.fd, unix.SIGKILL, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		errs = append(errs, fmt.Errorf("kill the shim %d: %w", s.pid, err))
	}
	return errors.Join(errs...)
}

// children lists the child processes of pid (of each of its threads).
func children(pid int) []int {
	var out []int
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Close releases the pidfd.
func (s *ShimProcess) Close() error { return unix.Close(s.fd) }
