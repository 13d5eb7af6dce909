package podlife_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/podlife/startpolicy"
)

// loopForever keeps a container running and lets it exit at once on SIGTERM.
const loopForever = `trap 'exit 0' TERM; while :; do sleep 0.1; done`

const hookSeconds = 3.0

// seedSpec is the article's pod scaled down: container1 has a postStart hook that runs for
// hookSeconds; both containers stamp their first line (host uptime) into a shared emptyDir.
func seedSpec(name string, reversed bool, policy startpolicy.Policy) podlife.PodSpec {
	const f = "/shared/message"
	mount := []podlife.VolumeMount{{Name: "shared", MountPath: "/shared"}}
	c1 := podlife.ContainerSpec{
		Name: "container1", Image: testImage, VolumeMounts: mount,
		Command: []string{"/bin/sh", "-c", stampCmd(f, "container1", "main") + "; " + loopForever},
		PostStart: hook.Exec("/bin/sh", "-c", stampCmd(f, "container1", "hook-begin")+
			"; sleep 3; "+stampCmd(f, "container1", "hook-end")),
	}
	c2 := podlife.ContainerSpec{
		Name: "container2", Image: testImage, VolumeMounts: mount,
		Command: []string{"/bin/sh", "-c", stampCmd(f, "container2", "main") + "; " + loopForever},
	}
	spec := podlife.PodSpec{
		Name:                   name,
		StartPolicy:            policy,
		TerminationGracePeriod: ptr(5 * time.Second),
		Volumes:                []podlife.Volume{{Name: "shared", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers:             []podlife.ContainerSpec{c1, c2},
	}
	if reversed {
		spec.Containers[0], spec.Containers[1] = c2, c1
	}
	return spec
}

// TestSmokeStartupSequence reproduces the seed article: under Sequential (the kubelet's order)
// container1's postStart blocks container2's start; reversed, nothing waits; under Parallel,
// nothing waits either. Times come from the containers' own log lines.
func TestSmokeStartupSequence(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name     string
		reversed bool
		policy   startpolicy.Policy
		blocked  bool
	}{
		{"order1-sequential", false, nil, true},
		{"order2-reversed", true, nil, false},
		{"order1-parallel", false, startpolicy.Parallel(0), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			t0 := uptime(t)
			pod, err := h.rt.Run(ctx, seedSpec("seed-"+tc.name, tc.reversed, tc.policy))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			st := pod.Status()
			if r, n := st.ReadyCount(); r != 2 || n != 2 || st.Phase != podlife.PhaseRunning {
				t.Fatalf("after Run: ready %d/%d phase %s, want 2/2 Running", r, n, st.Phase)
			}
			lines := waitStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"), "container1", "container2")
			c1, ok1 := first(lines, "container1", "main")
			c2, ok2 := first(lines, "container2", "main")
			hookEnd, ok3 := first(lines, "container1", "hook-end")
			if !ok1 || !ok2 || !ok3 {
				t.Fatalf("missing log lines: %+v", lines)
			}
			t.Logf("container1 main +%.2fs, hook end +%.2fs, container2 main +%.2fs", c1.at-t0, hookEnd.at-t0, c2.at-t0)
			if tc.blocked {
				if c2.at < hookEnd.at {
					t.Errorf("container2 started at %.2f, before container1's postStart ended at %.2f", c2.at, hookEnd.at)
				}
				if c2.at-c1.at < hookSeconds {
					t.Errorf("container2 started %.2fs after container1, want >= %.0fs (the hook's sleep)", c2.at-c1.at, hookSeconds)
				}
				started := eventTime(t, pod, "container2", reasons.Started)
				done := eventTime(t, pod, "container1", reasons.PostStartCompleted)
				if started.Before(done) {
					t.Errorf("Started(container2) %v before PostStartHookCompleted(container1) %v", started, done)
				}
			} else {
				// Neither container waited for the hook: both ran before it ended (an order,
				// not a duration, so a loaded host cannot fail it).
				for _, l := range []stamped{c1, c2} {
					if l.at >= hookEnd.at {
						t.Errorf("%s first line at +%.2fs, after container1's postStart ended at +%.2fs: it waited for the hook", l.who, l.at-t0, hookEnd.at-t0)
					}
				}
			}
			if err := pod.Remove(ctx); err != nil {
				t.Fatalf("Remove: %v", err)
			}
		})
	}
}

func eventTime(t *testing.T, p *podlife.Pod, container string, reason podlife.Reason) time.Time {
	t.Helper()
	for _, e := range p.Events() {
		if e.Container == container && e.Reason == reason {
			return e.Time
		}
	}
	t.Fatalf("no %s event for %s in %v", reason, container, p.Events())
	return time.Time{}
}
