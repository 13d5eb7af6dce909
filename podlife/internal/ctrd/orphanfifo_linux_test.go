package ctrd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func mkfifos(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mkfifo(filepath.Join(dir, n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// The shim's blocking open for writing of an orphaned exec FIFO completes once it is drained,
// more than a pipe's worth of output is read away, and the drain ends when the writer closes.
// Other FIFOs (a container's) are left alone.
func TestDrainOrphanFIFOs(t *testing.T) {
	dir := t.TempDir()
	mkfifos(t, dir, "a1/exec-1-stdout", "a1/exec-1-stderr", "c1/ctr-stdout")
	stop := make(chan struct{})
	defer close(stop)
	n, finished := DrainOrphanFIFOs(dir, "exec-", stop)
	if n != 2 {
		t.Fatalf("drained %d FIFOs, want the exec's 2", n)
	}
	for _, name := range []string{"exec-1-stdout", "exec-1-stderr"} {
		opened := make(chan error, 1)
		go func() {
			// As the shim does: a blocking open for writing, which waits for a reader.
			f, err := os.OpenFile(filepath.Join(dir, "a1", name), os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write(bytes.Repeat([]byte("x"), 1<<20))
				err = errors.Join(err, f.Close())
			}
			opened <- err
		}()
		select {
		case err := <-opened:
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the writer's open and 1 MiB write did not complete", name)
		}
	}
	select {
	case <-finished:
	case <-time.After(20 * time.Second):
		t.Fatal("the drain did not end once the writers closed")
	}
}

// Without a writer, a drain ends when stop is closed.
func TestDrainOrphanFIFOsStops(t *testing.T) {
	dir := t.TempDir()
	mkfifos(t, dir, "a1/exec-2-stdout")
	stop := make(chan struct{})
	n, finished := DrainOrphanFIFOs(dir, "exec-", stop)
	if n != 1 {
		t.Fatalf("drained %d FIFOs, want 1", n)
	}
	close(stop)
	select {
	case <-finished:
	case <-time.After(20 * time.Second):
		t.Fatal("the drain did not end on stop")
	}
}
