package logdriver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/crilog"
)

// A held line without its newline is written, as a partial line, when Flush asks through the
// FIFO pair beside the log, while the streams stay open; without a pair, Flush fails at once.
func TestFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	prefix := FlushPrefix(path)
	if err := Flush(prefix, time.Second); err == nil {
		t.Fatal("Flush without a FIFO pair succeeded")
	}
	if err := MakeFlush(prefix); err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // as the shim gives them
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	readied := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- serve(context.Background(), config{path: path, limits: crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 2}},
			outR, errR, func() error { close(readied); return nil })
	}()
	<-readied
	_, _ = io.WriteString(outW, "one\nDONE") // in the pipe: the flush waits until the logger read it
	if err := Flush(prefix, 10*time.Second); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), " stdout P DONE\n") {
		t.Errorf("log %q: want the held DONE written as a partial line", b)
	}
	_, _ = io.WriteString(outW, "more\n")
	_ = outW.Close()
	_ = errW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), " stdout F more\n") {
		t.Errorf("log %q: want the stream to go on after the flush", b)
	}
}
