package tasks

import (
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/containerd/containerd/v2/pkg/cio"
)

// ShimFIFOs are the FIFOs the shim connects an interactive container to: the client's stdin,
// and the output FIFOs this process copies (see TeeAttach).
func ShimFIFOs(client cio.Config) cio.Config {
	shim := client
	if client.Stdout != "" {
		shim.Stdout = client.Stdout[:len(client.Stdout)-len("stdout")] + "out"
	}
	if client.Stderr != "" {
		shim.Stderr = client.Stderr[:len(client.Stderr)-len("stderr")] + "err"
	}
	return shim
}

// teeIO is the cio.IO of an interactive container's task: the shim's FIFOs, and Wait for the
// copy of its output (see TeeAttach).
type teeIO struct {
	cfg  cio.Config
	done chan struct{}
}

func (t *teeIO) Config() cio.Config { return t.cfg }

func (*teeIO) Cancel() {}

func (t *teeIO) Wait() { <-t.done }

func (*teeIO) Close() error { return nil }

// TeeAttach copies the output of the shim's FIFOs of shim (opened by the shim for writing:
// the opens here do not wait) to stdout and stderr (the container's log) and to the clients'
// FIFOs of client, until the shim closes them or stop is closed (the Runtime's close: the output
// then waits in the shim's FIFO for an adopter); then it closes done.
func TeeAttach(shim, client cio.Config, stdout, stderr io.Writer, stop <-chan struct{}, done chan struct{}) error {
	type pair struct {
		from, to string
		log      io.Writer
	}
	pairs := []pair{{shim.Stdout, client.Stdout, stdout}}
	if shim.Stderr != "" {
		pairs = append(pairs, pair{shim.Stderr, client.Stderr, stderr})
	}
	var opened []*os.File
	for _, p := range pairs {
		in, err := os.OpenFile(p.from, os.O_RDONLY, 0)
		if err != nil {
			CloseAll(opened)
			return err
		}
		out, err := os.OpenFile(p.to, os.O_RDWR|syscall.O_NONBLOCK, 0)
		if err != nil {
			_ = in.Close()
			CloseAll(opened)
			return err
		}
		opened = append(opened, in, out)
	}
	var wg sync.WaitGroup
	for i, p := range pairs {
		in, out := opened[2*i], opened[2*i+1]
		wg.Go(func() {
			defer in.Close()
			defer out.Close()
			copyTee(in, p.log, out)
		})
	}
	copied := make(chan struct{})
	go func() {
		wg.Wait()
		close(copied)
		close(done)
	}()
	go func() {
		select {
		case <-stop:
			for i := range pairs {
				_ = opened[2*i].Close() // ends its Read
			}
		case <-copied:
		}
	}()
	return nil
}

// copyTee copies in to log and, without blocking, to client: what does not fit in client's
// pipe is dropped from it.
func copyTee(in io.Reader, log io.Writer, client *os.File) {
	raw, rerr := client.SyscallConn()
	buf := make([]byte, 32<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if log != nil {
				_, _ = log.Write(buf[:n])
			}
			if rerr == nil {
				// One write attempt, never a wait for the client to read (EAGAIN: dropped).
				_ = raw.Write(func(fd uintptr) bool {
					_, _ = syscall.Write(int(fd), buf[:n])
					return true
				})
			}
		}
		if err != nil {
			return
		}
	}
}
