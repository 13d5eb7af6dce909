package execgate

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// FIFO is podlife's end of one gated container's gate: the FIFO file on the host, then, once
// the gate waits, its write end. Its methods are safe for concurrent use.
type FIFO struct {
	path string
	mu   sync.Mutex
	f    *os.File // the write end once Wait returned; nil after Release or Close
	done bool
}

// FIFOName is the name of the FIFO of the gated container id in its pod's directory. The file
// exists from the container's making until its release (Release removes it before it lets
// the gate go) or its removal: a FIFO left beside a container whose manager died says that
// its command never ran, whatever its task's state (the gate then exits with
// ExitManagerGone: see Released).
func FIFOName(id string) string { return "execgate-" + id }

// Released reports whether the gated container id of the pod in dir may have been released
// (its command run): false while its FIFO (FIFOName) is there. A container made without the
// gate has no FIFO, so it reports true.
func Released(dir, id string) bool {
	_, err := os.Lstat(filepath.Join(dir, FIFOName(id)))
	return errors.Is(err, os.ErrNotExist)
}

// NewFIFO makes the FIFO of one gated container at path (a file in the member's directory,
// mode 0644: the gate may run as any user), replacing a leftover.
func NewFIFO(path string) (*FIFO, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("exec gate: %w", err)
	}
	if err := unix.Mkfifo(path, 0o644); err != nil {
		return nil, fmt.Errorf("exec gate: mkfifo %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // mkfifo's mode is under the umask
		return nil, fmt.Errorf("exec gate: %w", err)
	}
	return &FIFO{path: path}, nil
}

// Path is the FIFO's file on the host.
func (g *FIFO) Path() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.path
}

// Rebase changes the FIFO file's path (the member's directory was renamed: rebase maps an old
// path to the new one).
func (g *FIFO) Rebase(rebase func(string) string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.path = rebase(g.path)
}

// Wrap makes an OCI spec's process a gated one: the gate program (binary, on the host) runs
// first and executes the process's arguments once released; both files are bind-mounted
// read-only under /dev. It must be applied after everything else that sets the arguments.
func (g *FIFO) Wrap(s *specs.Spec, binary string) error {
	if s.Process == nil || len(s.Process.Args) == 0 {
		return errors.New("exec gate: the process has no arguments")
	}
	s.Process.Args = slices.Concat([]string{BinaryPath, "--"}, s.Process.Args)
	s.Mounts = append(s.Mounts,
		specs.Mount{Destination: BinaryPath, Type: "bind", Source: binary, Options: []string{"bind", "ro", "nosuid", "nodev"}},
		specs.Mount{Destination: FIFOPath, Type: "bind", Source: g.path, Options: []string{"bind", "ro", "nosuid", "nodev", "noexec"}})
	return nil
}

// ErrGateExited is returned by Wait when the gated process ended before it waited.
var ErrGateExited = errors.New("exec gate: the container's gate exited before it waited")

// Wait returns once the gate waits on the FIFO (podlife's end is then open), or with
// ErrGateExited once gone (asked between tries) reports the gated process ended, or with ctx's
// error.
func (g *FIFO) Wait(ctx context.Context, gone func() bool) error {
	delay := 200 * time.Microsecond
	for {
		fd, err := unix.Open(g.path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			// Writes of one byte to an empty pipe never block; the flag stays.
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.done {
				unix.Close(fd)
				return errors.New("exec gate: closed")
			}
			g.f = os.NewFile(uintptr(fd), g.path)
			return nil
		}
		if !errors.Is(err, unix.ENXIO) && !errors.Is(err, unix.EINTR) { // ENXIO: no reader yet
			return fmt.Errorf("exec gate: open %s: %w", g.path, err)
		}
		if gone() {
			return ErrGateExited
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, 5*time.Millisecond)
	}
}

// Release lets the gated process execute its command: the start of a gated container. It
// returns once the gate has read the start byte (as runc's start returns once runc's init has
// been released), so that the next container of the start order is released only after this
// one's; at most after ctx ends or readWait, if the gate is not scheduled meanwhile. It fails
// if the gate is not waiting (Wait did not return nil) or has gone (EPIPE). The FIFO file is
// removed first (the open end stays usable): once the command may run, no FIFO is left to say
// it did not (see Released).
func (g *FIFO) Release(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.f == nil {
		return errors.New("exec gate: not waiting")
	}
	if err := os.Remove(g.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("exec gate: %w", err)
	}
	f := g.f
	g.f, g.done = nil, true
	defer f.Close()
	if _, err := f.Write([]byte{1}); err != nil {
		return fmt.Errorf("exec gate: %w", err)
	}
	deadline := time.Now().Add(readWait)
	for {
		n, err := unread(f)
		if err != nil || n == 0 || ctx.Err() != nil || time.Now().After(deadline) {
			return nil // read (or not knowable): the process is released
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// readWait bounds Release's wait for the gate to read the start byte.
const readWait = time.Second

// Close closes podlife's end without releasing the gate (which then exits with
// ExitManagerGone) and removes the FIFO file. It may be called more than once.
func (g *FIFO) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var err error
	if g.f != nil {
		err = g.f.Close()
		g.f = nil
	}
	g.done = true
	if rerr := os.Remove(g.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// CheckBinary checks that path can be a gate program: an absolute path to an executable,
// statically linked ELF file (a container's image may have no C library, or another one).
func CheckBinary(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%q must be an absolute path", path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 != 0o111 {
		return fmt.Errorf("%s: must be a regular file executable by everyone (mode %v)", path, st.Mode())
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: not an ELF program: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s: dynamically linked (build it with CGO_ENABLED=0)", path)
		}
	}
	return nil
}
