package restart_test

import (
	"fmt"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/restart"
)

// A container that crashes as soon as it starts, restarted with the
// kubelet's back-off.
func Example() {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t := restart.New(restart.Config{}, clk)
	for range 8 {
		finishedAt := clk.Now() // the container exited
		wait := t.Next("pod-uid/app", finishedAt)
		if wait > 0 {
			fmt.Println(restart.Message(t.Delay("pod-uid/app"), "app", "web_default(pod-uid)"))
			clk.Advance(wait)
			t.Next("pod-uid/app", finishedAt) // returns 0: restart now
		}
		fmt.Printf("restarted %v after the crash\n", clk.Now().Sub(finishedAt))
	}
	// Output:
	// restarted 0s after the crash
	// back-off 10s restarting failed container=app pod=web_default(pod-uid)
	// restarted 10s after the crash
	// back-off 20s restarting failed container=app pod=web_default(pod-uid)
	// restarted 20s after the crash
	// back-off 40s restarting failed container=app pod=web_default(pod-uid)
	// restarted 40s after the crash
	// back-off 1m20s restarting failed container=app pod=web_default(pod-uid)
	// restarted 1m20s after the crash
	// back-off 2m40s restarting failed container=app pod=web_default(pod-uid)
	// restarted 2m40s after the crash
	// back-off 5m0s restarting failed container=app pod=web_default(pod-uid)
	// restarted 5m0s after the crash
	// back-off 5m0s restarting failed container=app pod=web_default(pod-uid)
	// restarted 5m0s after the crash
}
