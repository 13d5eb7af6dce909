package podlife_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// A container that floods stdout, and restarts, cannot fill the disk: each attempt's log is
// rotated at MaxSize and keeps MaxFiles files, and only the current and previous attempts'
// logs are kept. The newest output is never lost.
func TestLogFloodIsBounded(t *testing.T) {
	limits := podlife.LogLimits{MaxSize: 256 << 10, MaxFiles: 3}
	h := newHarness(t, func(c *podlife.Config) {
		c.Logs = limits
		c.Backoff = podlife.Backoff{Initial: 50 * time.Millisecond, Max: 100 * time.Millisecond}
	})
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	// Each attempt writes ~4 MiB (16x MaxSize), then its marker, then exits 1 to be restarted.
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "flood", TerminationGracePeriod: ptr(time.Duration(0)),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c"},
			Args: []string{`yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c 4194304; echo; echo flood-done; exit 1`},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	c, _ := pod.Container("app")
	// Wait for the fourth attempt's start: attempts 0..2 have ended by then.
	starts := 0
	waitEventMatch(t, ctx, pod, "a fourth start", func(e podlife.Event) bool {
		if e.Reason == reasons.Started && e.Container == "app" {
			starts++
		}
		return starts == 4
	})
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	dir := filepath.Dir(podlife.LogPath(c))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	attempts := map[int]int{}
	var total int64
	for _, e := range entries {
		if strings.Contains(e.Name(), ".flush.") {
			continue // the logger's flush FIFOs (termination messages), not logs
		}
		n, err := strconv.Atoi(strings.SplitN(e.Name(), ".", 2)[0])
		if err != nil {
			t.Errorf("unexpected file %s", e.Name())
			continue
		}
		attempts[n]++
		info, _ := e.Info()
		total += info.Size()
		if info.Size() > limits.MaxSize+32<<10 {
			t.Errorf("%s: %d bytes, over MaxSize %d", e.Name(), info.Size(), limits.MaxSize)
		}
	}
	if len(attempts) != 2 {
		t.Errorf("log files of attempts %v, want only the current and the previous", attempts)
	}
	for n, files := range attempts {
		if files > limits.MaxFiles {
			t.Errorf("attempt %d: %d files, want at most %d", n, files, limits.MaxFiles)
		}
	}
	if max := 2 * int64(limits.MaxFiles) * (limits.MaxSize + 32<<10); total > max {
		t.Errorf("logs take %d bytes, want at most %d", total, max)
	}
	// The previous attempt ran to its end: its last file ends with the marker.
	prev, cur := -1, -1
	for n := range attempts {
		cur = max(cur, n)
	}
	for n := range attempts {
		if n < cur {
			prev = max(prev, n)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(prev)+".log"))
	if err != nil {
		t.Fatalf("previous attempt's log: %v", err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if l, ok := podlife.ParseLogLine(lines[len(lines)-1]); !ok || l.Text != "flood-done" {
		t.Errorf("previous attempt's last line %q, want flood-done", lines[len(lines)-1])
	}
}
