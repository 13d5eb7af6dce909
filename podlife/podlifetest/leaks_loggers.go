package podlifetest

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// LoggerLeaks lists the container logger processes (Config.ContainerLogger, started by the
// shims) still writing a log file under stateDir. The shim stops a container's logger when it
// deletes the task, so none should be left once every pod is removed; it waits until ctx is done
// for them to go before reporting the ones left. The shared logger of stateDir (see
// podlife/containerlogger) counts too: it exits about 2 s after it last wrote a container's
// output.
func LoggerLeaks(ctx context.Context, stateDir string) []string {
	// The logger's arguments: "--podlife-log-file <path>", in no fixed order among others; the
	// shared logger's: "--podlife-log-daemon <stateDir>".
	substr := "--podlife-log-file\x00" + filepath.Clean(stateDir) + "/"
	daemon := "--podlife-log-daemon\x00" + filepath.Clean(stateDir) + "\x00"
	for {
		pids := append(Processes(substr), Processes(daemon)...)
		if len(pids) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			out := make([]string, len(pids))
			for i, pid := range pids {
				out[i] = fmt.Sprintf("container logger process %d writing under %s", pid, stateDir)
			}
			return out
		case <-time.After(50 * time.Millisecond):
		}
	}
}
