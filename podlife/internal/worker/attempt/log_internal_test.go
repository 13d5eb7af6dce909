package attempt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/crilog"
)

// With a container logger, OpenLog hands the task to it: the log URI's arguments name the
// attempt's file and the limits, the file exists already (Logs finds it at once), older
// attempts are pruned, and this process keeps no writer. Without one, this process writes.
func TestOpenLog(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"0.log", "1.log"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	limits := crilog.Limits{MaxSize: 1 << 20, MaxFiles: 3}
	out, lg, err := OpenLog(dir, "/fifo", 2, LogConfig{Logger: "/usr/local/bin/podlife-logger", Limits: limits, StateDir: "/state",
		Shared: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "2.log")
	if out.Logger != "/usr/local/bin/podlife-logger" || out.Stdout != nil || out.Stderr != nil || lg.Writer != nil || len(lg.Streams) != 0 {
		t.Errorf("output %+v, writer %v: want the logger alone", out, lg.Writer)
	}
	if out.LoggerArgs["--podlife-log-file"] != want || out.LoggerArgs["--podlife-log-max-size"] != "1048576" || out.LoggerArgs["--podlife-log-max-files"] != "3" ||
		out.LoggerArgs["--podlife-log-shared"] != "/state" {
		t.Errorf("logger args %v, want the file %s, the limits and the state dir's shared logger", out.LoggerArgs, want)
	}
	if lg.Path != want {
		t.Errorf("log path %s, want %s", lg.Path, want)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// With a logger, the new attempt's log has its flush FIFO pair beside it (termination
	// messages read the log's tail once the logger has written what it holds).
	if strings.Join(names, " ") != "1.log 2.flush.ack 2.flush.req 2.log" {
		t.Errorf("files %v, want the previous attempt's and the new one's, with its flush FIFOs", names)
	}

	out, lg, err = OpenLog(dir, "/fifo", 3, LogConfig{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Writer.Close()
	if out.Logger != "" || out.Stdout == nil || out.Stderr == nil || out.FIFODir != "/fifo" || lg.Writer == nil || len(lg.Streams) != 2 {
		t.Errorf("fallback output %+v: want this process's streams through FIFOs", out)
	}
}
