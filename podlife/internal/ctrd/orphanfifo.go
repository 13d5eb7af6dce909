package ctrd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// shimFIFOWait is how long containerd's runc shim waits, starting an exec, for a reader on the
// exec's stdout and stderr FIFOs (cmd/containerd-shim-runc-v2/process/exec.go: a 30 s timeout
// around its IO copy's blocking open of each FIFO for writing). All that time the exec counts as
// running, and the shim holds back its container's init exit until no exec runs (service.go,
// handleInitExit): a stop waits that long for the container's exit.
const shimFIFOWait = 30 * time.Second

// orphanFIFOPoll is how often an orphaned FIFO is read while it has nothing to read.
const orphanFIFOPoll = 50 * time.Millisecond

// DrainOrphanFIFOs opens for reading, and reads to nothing, the stdout and stderr FIFOs in dir
// of the exec'd processes whose IDs start with prefix, in cio.NewFIFOSetInDir's layout
// (dir/<random>/<id>-stdout): those a process that died left behind, with execs of its own in
// flight (a hook, a probe). Their reader gone, the shim's start of such an exec would block on
// opening them (see shimFIFOWait), and a started exec whose output nobody reads would block on
// a full pipe. Each FIFO is read until its writer has come and gone, or, if no writer comes,
// for a little longer than the shim waits, or until stop is closed. It returns how many FIFOs
// it opened and a channel closed once every one is closed again.
//
// Only a process that knows the FIFOs' owner is dead may call it: a live owner would lose
// the output to it.
func DrainOrphanFIFOs(dir, prefix string, stop <-chan struct{}) (int, <-chan struct{}) {
	var paths []string
	for _, suffix := range []string{"-stdout", "-stderr"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*", prefix+"*"+suffix))
		paths = append(paths, m...)
	}
	finished := make(chan struct{})
	var fds []int
	for _, path := range paths {
		if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 || !strings.HasPrefix(filepath.Base(path), prefix) {
			continue
		}
		// Non-blocking: a FIFO without a writer opens at once for reading.
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			fds = append(fds, fd)
		}
	}
	go func() {
		defer close(finished)
		done := make(chan struct{}, len(fds))
		for _, fd := range fds {
			go func() {
				defer func() { done <- struct{}{} }()
				drainFIFO(fd, stop)
			}()
		}
		for range fds {
			<-done
		}
	}()
	return len(fds), finished
}

// drainFIFO reads fd (a FIFO opened non-blocking) until its writer has come and gone, or no
// writer came for longer than shimFIFOWait, or stop is closed; then closes it.
func drainFIFO(fd int, stop <-chan struct{}) {
	defer unix.Close(fd)
	buf := make([]byte, 32<<10)
	giveUp := time.Now().Add(shimFIFOWait + 5*time.Second)
	writer := false
	tick := time.NewTicker(orphanFIFOPoll)
	defer tick.Stop()
	for {
		n, err := unix.Read(fd, buf)
		switch {
		case n > 0:
			writer = true
			continue
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN): // a writer, nothing written yet
			writer = true
		case err != nil:
			return
		default: // no writer (end of file)
			if writer || time.Now().After(giveUp) {
				return
			}
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
