package logdriver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/crilog"
)

// The arguments survive the shim's flattening of the log URI query into "key value" pairs.
func TestArgsRoundTrip(t *testing.T) {
	want := config{path: "/p/logs/c/3.log", limits: crilog.Limits{MaxSize: 1 << 20, MaxFiles: 4}}
	var args []string
	for k, v := range Args(want.path, want.limits) {
		args = append(args, k, v)
	}
	if !IsLogger(args) {
		t.Fatalf("IsLogger(%q) = false", args)
	}
	got, err := parseArgs(args)
	if err != nil || got != want {
		t.Fatalf("parseArgs(%q) = %+v, %v; want %+v", args, got, err, want)
	}
	if IsLogger([]string{"run", "-f", "pod.yaml"}) {
		t.Error("a CLI's own arguments taken for a logger's")
	}
	for _, bad := range [][]string{nil, {argFile}, {argFile, "/x", argMaxSize, "12", argMaxFiles, "2"}, {"--other", "1"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q) accepted", bad)
		}
	}
}

// The logger signals readiness once the file is open, writes both streams in the CRI format,
// and ends when both streams end, a trailing line without its newline marked partial.
func TestServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	readied := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- serve(context.Background(), config{path: path, limits: crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 2}},
			outR, errR, func() error { close(readied); return nil })
	}()
	<-readied
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("ready before the file exists: %v", err)
	}
	_, _ = io.WriteString(outW, "one\ntw")
	_, _ = io.WriteString(errW, "oops\n")
	_, _ = io.WriteString(outW, "o\ncut")
	_ = outW.Close()
	_ = errW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.SplitN(l, " ", 2)
		got = append(got, f[1])
	}
	want := map[string]bool{"stdout F one": true, "stdout F two": true, "stderr F oops": true, "stdout P cut": true}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %v", got, want)
	}
	for _, l := range got {
		if !want[l] {
			t.Errorf("unexpected line %q in %q", l, got)
		}
	}
}

// Asked to stop (the shim's SIGTERM), the logger still drains what it can read until the
// streams end.
func TestServeDrainsAfterCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	readied := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- serve(ctx, config{path: path, limits: crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 2}},
			outR, errR, func() error { close(readied); return nil })
	}()
	<-readied
	cancel()
	_, _ = io.WriteString(outW, "late\n")
	_ = outW.Close()
	_ = errW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), " stdout F late\n") {
		t.Errorf("log %q lacks the line written after the stop request", b)
	}
}

// A log file that cannot be opened does not kill the container or block it: the logger says it
// is ready, drains the output to nowhere, and reports the error when the streams end.
func TestServeUnwritableDrains(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(parent, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	readied := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- serve(context.Background(), config{path: filepath.Join(parent, "0.log"), limits: crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 2}},
			outR, errR, func() error { close(readied); return nil })
	}()
	<-readied
	// io.Pipe writes block until read: these return only if the logger drains.
	_, _ = io.WriteString(outW, strings.Repeat("x\n", 1<<16))
	_, _ = io.WriteString(errW, "oops\n")
	_ = outW.Close()
	_ = errW.Close()
	if err := <-served; err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("serve: %v, want the open error", err)
	}
}
