package restarting

import (
	"context"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Kind is what decides an exited container's restart besides its spec.
type Kind struct {
	Ephemeral bool // added to the running pod: never restarted (Kubernetes' ephemeral containers)
	Sidecar   bool // an init container with restartPolicy Always: always restarted
	Init      bool // an init container: restarted only after a failure
	Resizing  bool // stopped to be restarted by a resize: restarted whatever its policy
}

// ShouldRestart applies the kubelet's rules to a container of kind k and spec c that exited
// with code: a sidecar always restarts; a regular init container restarts on failure, an app
// container on any exit, as its own restart policy and rules or else the pod's policy say
// (api.RestartsAfter).
func ShouldRestart(k Kind, c *api.ContainerSpec, pod api.RestartPolicy, code int) bool {
	switch {
	case k.Ephemeral:
		return false
	case k.Sidecar:
		return true
	case k.Init && code == 0:
		return false
	case k.Resizing:
		return true
	}
	return api.RestartsAfter(c, pod, code)
}

// BackoffKey is a container's entry in the Runtime's crash-loop back-off: per pod UID, so that
// a new pod of the same name starts afresh.
func BackoffKey(podUID, container string) string { return podUID + "/" + container }

// AwaitBackoff waits out the crash-loop back-off of the container (of pod) whose entry in
// tracker is key and whose last instance finished at finishedAt. While it is in back-off,
// waiting is called with the message of its CrashLoopBackOff waiting state (the caller shows
// it and emits its BackOff event) before each wait. It returns true once the container may
// restart (the back-off advanced), false if ctx ended first.
func AwaitBackoff(ctx context.Context, tracker *restart.Tracker, clk clock.Clock, key, container, pod string, finishedAt time.Time, waiting func(msg string)) bool {
	for {
		// Next returns how long the container is still in back-off, and 0 (advancing the
		// back-off) once it may restart.
		delay := tracker.Next(key, finishedAt)
		if delay <= 0 {
			return true
		}
		waiting(restart.Message(tracker.Delay(key), container, pod))
		timer := clk.NewTimer(delay)
		select {
		case <-timer.C():
		case <-ctx.Done():
			timer.Stop()
			return false
		}
	}
}
