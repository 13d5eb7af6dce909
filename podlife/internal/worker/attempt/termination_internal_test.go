package attempt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

// The message is the file's last 4096 bytes, cut to the pod's share; a failed container under
// FallbackToLogsOnError whose file is empty gets its log's tail; a file that is not a regular
// one is an error message.
func TestTerminationMessage(t *testing.T) {
	dir := t.TempDir()
	path, m, err := TerminationMount(dir, "id1", "/dev/termination-log")
	if err != nil {
		t.Fatal(err)
	}
	if m.Destination != "/dev/termination-log" || m.Source != path {
		t.Errorf("mount %+v, want %s at /dev/termination-log", m, path)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o666 || fi.Size() != 0 {
		t.Errorf("message file: %v %v, want an empty file of mode 0666", fi, err)
	}
	if err := os.WriteFile(path, []byte("x"+strings.Repeat("m", maxTerminationMessage)), 0o666); err != nil {
		t.Fatal(err)
	}
	if msg := TerminationMessage(Exited{TermPath: path, Containers: 1}, 0); msg != strings.Repeat("m", maxTerminationMessage) {
		t.Errorf("message of %d bytes, want the file's last %d", len(msg), maxTerminationMessage)
	}
	if msg := TerminationMessage(Exited{TermPath: path, Containers: 4}, 0); len(msg) != maxPodTerminationMessages/4 {
		t.Errorf("message of %d bytes, want a fourth of the pod's %d", len(msg), maxPodTerminationMessages)
	}

	w, logPath, err := OpenCRILog(filepath.Join(dir, "logs"), 0, defaultLogLimits)
	if err != nil {
		t.Fatal(err)
	}
	out := w.Stream("stdout")
	_, _ = out.Write([]byte("first\nlast words"))
	_ = out.Close()
	_ = w.Close()
	empty, _, err := TerminationMount(dir, "id2", "/dev/termination-log")
	if err != nil {
		t.Fatal(err)
	}
	e := Exited{TermPath: empty, LogPath: logPath, Fallback: true, Containers: 1}
	if msg := TerminationMessage(e, 1); msg != "first\nlast words" {
		t.Errorf("fallback message %q, want the log's tail", msg)
	}
	if msg := TerminationMessage(e, 0); msg != "" {
		t.Errorf("message of a success %q, want none (the fallback is for failures)", msg)
	}
	if msg := TerminationMessage(Exited{TermPath: filepath.Join(dir, "logs"), Containers: 1}, 0); !strings.HasPrefix(msg, "Error on reading termination log: ") {
		t.Errorf("message of a directory %q, want the error", msg)
	}
	if msg := TerminationMessage(Exited{Containers: 1}, 1); msg != "" {
		t.Errorf("message of an instance without a file %q, want none", msg)
	}
}

// Capture returns the output up to 1 MiB, and -1 with what was written when ctx ends first.
func TestCapture(t *testing.T) {
	big := strings.Repeat("a", 1<<20+10)
	res, err := Capture(context.Background(), func(_ context.Context, _ []string, s api.ExecIO) (int, error) {
		_, _ = s.Stdout.Write([]byte(big))
		return 2, nil
	}, nil)
	if err != nil || res.ExitCode != 2 || len(res.Output) != 1<<20 {
		t.Errorf("Capture: code %d, %d bytes, %v; want 2 and 1 MiB", res.ExitCode, len(res.Output), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Capture(ctx, func(ctx context.Context, _ []string, s api.ExecIO) (int, error) {
		_, _ = s.Stderr.Write([]byte("partial"))
		return -1, ctx.Err()
	}, nil)
	if !errors.Is(err, context.Canceled) || res.ExitCode != -1 || string(res.Output) != "partial" {
		t.Errorf("Capture cancelled: %+v %v", res, err)
	}
}
