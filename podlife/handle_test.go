package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
)

// One handle, wherever the pod's manager is: the handle Runtime.Pod gives stops, removes, execs
// in, reads the logs of and sets a condition of a pod that this Runtime manages, that another
// Runtime on the state directory manages (as another process would, through its control socket)
// and that nobody manages (its manager's Runtime closed: the unmanaged path), with the same
// calls. Its read side answers from the worker or from the record; what needs the worker is
// refused with ErrNotLocal until this Runtime adopts the pod, and then works on the same handle.
func TestPodHandleWhereverTheManager(t *testing.T) {
	h := newHarness(t)
	const gate = conditions.Type("example.com/gate")
	spec := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(10 * time.Second),
			ReadinessGates: []conditions.Type{gate},
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage,
				Command: []string{"/bin/sh", "-c", "echo hello-" + name + "; " + loopForever}}}}
	}
	for _, tc := range []struct {
		name    string
		manager string // "this", "other" or "nobody"
		adopt   bool   // this Runtime adopts the unmanaged pod half-way
	}{
		{"handle-this", "this", false},
		{"handle-other", "other", false},
		{"handle-nobody", "nobody", false},
		{"handle-adopted", "nobody", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			runner := h.rt
			if tc.manager != "this" {
				runner = h.another(t)
			}
			t.Cleanup(func() { // before the other runtime's Close and the harness's leak check
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := removePod(ctx, h.rt, tc.name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
					t.Errorf("cleanup: remove: %v", err)
				}
			})
			started, err := runner.Run(ctx, spec(tc.name))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if _, err := started.WaitFor(ctx, func(st podlife.PodStatus) bool { return every(st.ContainerStatuses, runningReady) }); err != nil {
				t.Fatalf("containers never ready: %v", err)
			}
			uid := started.UID()
			pod, err := h.rt.Pod(tc.name)
			if err != nil {
				t.Fatalf("Pod: %v", err)
			}
			if tc.manager == "nobody" {
				if err := runner.Close(); err != nil {
					t.Fatalf("Close the manager: %v", err)
				}
			}
			local := tc.manager == "this"

			// The read side.
			if pod.Name() != tc.name || pod.UID() != uid {
				t.Errorf("name %q uid %q, want %q %q", pod.Name(), pod.UID(), tc.name, uid)
			}
			if s := pod.Spec(); len(s.Containers) != 1 || s.Containers[0].Name != "app" || len(s.ReadinessGates) != 1 {
				t.Errorf("spec %+v, want the pod's", s)
			}
			waitStatus(t, pod, "running", func(st podlife.PodStatus) bool {
				return st.Name == tc.name && st.Phase == podlife.PhaseRunning && len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].State.Running != nil
			})
			_, cerr := pod.Container("app")
			if local && cerr != nil {
				t.Errorf("Container: %v", cerr)
			}
			if !local {
				_, werr := pod.Wait(ctx)
				for what, err := range map[string]error{"Container": cerr, "Wait": werr, "WaitReady": pod.WaitReady(ctx), "WaitStarted": pod.WaitStarted(ctx)} {
					if !errors.Is(err, podlife.ErrNotLocal) {
						t.Errorf("%s: %v, want ErrNotLocal", what, err)
					}
				}
				if evs := pod.Events(); len(evs) != 0 {
					t.Errorf("events of a pod of another manager %v, want none here", evs)
				}
				if _, open := <-pod.Subscribe(ctx); open {
					t.Error("Subscribe to a pod of another manager gave an event, want the channel closed")
				}
			}

			if tc.adopt {
				adopted, err := h.rt.Adopt(ctx, spec(tc.name))
				if err != nil {
					t.Fatalf("Adopt: %v", err)
				}
				if adopted.UID() != uid {
					t.Errorf("adopted uid %q, want %q", adopted.UID(), uid)
				}
				if _, err := pod.Container("app"); err != nil {
					t.Errorf("Container through the handle got before the adoption: %v", err)
				}
				local = true
			}

			// Exec: separate streams and the exit code.
			var o, e bytes.Buffer
			code, err := pod.Exec(ctx, "app", []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, podlife.ExecIO{Stdout: &o, Stderr: &e})
			if err != nil || code != 3 || o.String() != "out\n" || e.String() != "err\n" {
				t.Errorf("Exec: code %d, err %v, stdout %q, stderr %q; want 3, nil, %q, %q", code, err, o.String(), e.String(), "out\n", "err\n")
			}
			if _, err := pod.Exec(ctx, "nosuch", []string{"true"}, podlife.ExecIO{}); !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("Exec in a missing container: %v, want ErrNotFound", err)
			}

			// Logs: the container's output (copied to its log a moment after it was written).
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var b bytes.Buffer
				err := pod.Logs(ctx, "app", podlife.LogOptions{}, &b)
				if err == nil && strings.Contains(b.String(), "hello-"+tc.name+"\n") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("Logs: %q, %v; want the line hello-%s", b.String(), err, tc.name)
				}
			}

			// SetCondition: the manager sets it, wherever it is; an unmanaged pod has none to set.
			err = pod.SetCondition(ctx, gate, conditions.True, "Set", "through the handle")
			switch {
			case tc.manager == "nobody" && !tc.adopt:
				if !errors.Is(err, podlife.ErrNotFound) {
					t.Errorf("SetCondition on an unmanaged pod: %v, want ErrNotFound", err)
				}
			case err != nil:
				t.Errorf("SetCondition: %v", err)
			default:
				waitStatus(t, pod, "the gate True and the pod Ready", func(st podlife.PodStatus) bool {
					c := st.Condition(gate)
					return c.Status == conditions.True && c.Reason == "Set" && st.Condition(conditions.PodReady).Status == conditions.True
				})
			}
			if err := pod.SetCondition(ctx, conditions.PodReady, conditions.True, "", ""); !errors.Is(err, podlife.ErrInvalidSpec) {
				t.Errorf("SetCondition of Ready: %v, want ErrInvalidSpec", err)
			}

			// Stop: the pod's containers end; it stays until Remove.
			if err := pod.Stop(ctx, podlife.WithGracePeriod(5*time.Second)); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			waitStatus(t, pod, "stopped", func(st podlife.PodStatus) bool {
				return st.Phase == podlife.PhaseSucceeded && every(st.ContainerStatuses, terminated)
			})
			if _, err := h.rt.Pod(tc.name); err != nil {
				t.Errorf("Pod of the stopped pod: %v, want it still there", err)
			}

			// Remove: nothing is left of it.
			if err := pod.Remove(ctx); err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if _, err := h.rt.Pod(tc.name); !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("Pod after Remove: %v, want ErrNotFound", err)
			}
			if _, err := h.rt.LookupPod(ctx, tc.name); !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("LookupPod after Remove: %v, want ErrNotFound", err)
			}
		})
	}
}

// waitStatus polls the handle's status until ok holds, for at most 30 s: the status of a pod of
// another manager is its record, which the manager writes a moment after each change.
func waitStatus(t *testing.T, pod *podlife.Pod, what string, ok func(podlife.PodStatus) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := pod.Status()
		if ok(st) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s never %s: last status %+v", pod.Name(), what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
