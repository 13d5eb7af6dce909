package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/crilog"
)

// With a container logger, openLog hands the task to it: the log URI's arguments name the
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
	inst := &instance{rt: &Host{Cfg: HostConfig{ContainerLogger: "/usr/local/bin/podlife-logger", Logs: limits, StateDir: "/state"},
		SharedLogger: func() bool { return true }}, attempt: 2}
	out, err := inst.openLog(dir, "/fifo")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "2.log")
	if out.Logger != "/usr/local/bin/podlife-logger" || out.Stdout != nil || out.Stderr != nil || inst.log != nil || len(inst.streams) != 0 {
		t.Errorf("output %+v, writer %v: want the logger alone", out, inst.log)
	}
	if out.LoggerArgs["--podlife-log-file"] != want || out.LoggerArgs["--podlife-log-max-size"] != "1048576" || out.LoggerArgs["--podlife-log-max-files"] != "3" ||
		out.LoggerArgs["--podlife-log-shared"] != "/state" {
		t.Errorf("logger args %v, want the file %s, the limits and the state dir's shared logger", out.LoggerArgs, want)
	}
	if inst.logPath != want {
		t.Errorf("logPath %s, want %s", inst.logPath, want)
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

	inst = &instance{rt: &Host{Cfg: HostConfig{Logs: limits}}, attempt: 3}
	out, err = inst.openLog(dir, "/fifo")
	if err != nil {
		t.Fatal(err)
	}
	defer inst.log.Close()
	if out.Logger != "" || out.Stdout == nil || out.Stderr == nil || out.FIFODir != "/fifo" || inst.log == nil || len(inst.streams) != 2 {
		t.Errorf("fallback output %+v: want this process's streams through FIFOs", out)
	}
}
