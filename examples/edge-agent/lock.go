package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// errAgentRunning: another agent holds the agent dir.
var errAgentRunning = errors.New("another edge-agent runs with this agent dir")

// lockAgentDir takes the agent dir's lock (an flock on <dir>/lock, released when the process
// ends, however it ends), so that two agents never manage the same pods. The lock file holds
// the holder's PID, for the error of the next one.
func lockAgentDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("agent state: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b, _ := os.ReadFile(f.Name())
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (pid %s)", errAgentRunning, strings.TrimSpace(string(b)))
		}
		return nil, fmt.Errorf("agent state: lock: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
