package podlife_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// When the state dir's shared logger dies (SIGKILL), the output pipes of the containers it wrote
// have no reader left: a container's writes fail with EPIPE (its process is PID 1 of its PID
// namespace, which SIGPIPE does not kill), so it goes on running and what it prints is lost
// until its next attempt, whose output the restart hands to a new shared logger (started by that
// hand-off). Two pods' containers share one logger.
func TestSharedLoggerKilled(t *testing.T) {
	h := newHarness(t, fastBackoff)
	if h.cfg.ContainerLogger == "" {
		t.Fatal("the harness has no container logger")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// 30 lines in about 3 s, then an exit and a restart (restartPolicy Always).
	printer := podlife.ContainerSpec{Name: "app", Image: testImage,
		Command: shCmd(`i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo "line $i"; sleep 0.1; done`)}
	var apps []*podlife.Container
	for _, name := range []string{"sl-a", "sl-b"} {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Second),
			Containers: []podlife.ContainerSpec{printer}})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := pod.Remove(ctx); err != nil && !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("cleanup: Remove: %v", err)
			}
		})
		app, err := pod.Container("app")
		if err != nil {
			t.Fatal(err)
		}
		apps = append(apps, app)
	}
	var firstLogs []string
	for _, app := range apps {
		waitLogHas(t, podlife.LogPath(app), "line 2")
		firstLogs = append(firstLogs, podlife.LogPath(app))
	}
	logger := sharedLoggerOf(t, h.stateDir)
	if err := syscall.Kill(logger, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, app := range apps {
		for deadline := time.Now().Add(time.Minute); app.Status().RestartCount < 1; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no restart: %+v", app.Name(), app.Status())
			}
		}
		// The first attempt ran to its end (exit 0, not killed by SIGPIPE); its log lacks
		// what it printed after the logger died.
		if last := app.Status().LastState.Terminated; last == nil || last.ExitCode != 0 {
			t.Errorf("last state %+v, want the first attempt's exit 0", last)
		}
		if b, _ := os.ReadFile(firstLogs[i]); strings.Contains(string(b), " line 30\n") {
			t.Errorf("%s has the line printed after its logger died", firstLogs[i])
		}
		// The new attempt's log fills, written by a new shared logger.
		if podlife.LogPath(app) == firstLogs[i] {
			t.Fatalf("the new attempt logs to %s too", firstLogs[i])
		}
		waitLogHas(t, podlife.LogPath(app), "line 2")
	}
	if again := sharedLoggerOf(t, h.stateDir); again == logger {
		t.Errorf("the shared logger %d still runs after SIGKILL", logger)
	}
}

// waitLogHas waits (bounded) until the CRI log at path has a line ending in text.
func waitLogHas(t *testing.T, path, text string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), " "+text+"\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no line %q in %q", path, text, b)
		}
	}
}
