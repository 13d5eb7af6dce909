package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// With --prewarm 1 the agent keeps a warm pool member of its manifest's pod (another process
// lists it): the pod removed behind its back is run again from that member (the pod's UID is
// the member's); the manifest's removal drops the pool; SIGTERM leaves nothing of it.
func TestAgentPrewarm(t *testing.T) {
	e := newAgentEnv(t)
	e.write("w.yaml", "warm", "v1")
	agent := e.start("--prewarm", "1", "--stop-pods-on-exit")
	e.waitFor("warm running", func() bool { w, ok := e.pod("warm"); return running(w, ok, "", stateManaged) })
	rt := e.runtime()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var member string
	e.waitFor("a ready pool member", func() bool {
		ms, err := rt.ListPoolMembers(ctx)
		if err == nil && len(ms) == 1 && ms[0].Ready && ms[0].Live {
			member = ms[0].UID
			return true
		}
		return false
	})
	first, err := rt.LookupPod(ctx, "warm-edge")
	if err != nil {
		t.Fatal(err)
	}
	pod, err := rt.Pod("warm-edge")
	if err != nil {
		t.Fatal(err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	var again string
	e.waitFor("warm run again", func() bool {
		w, ok := e.pod("warm")
		rec, err := rt.LookupPod(ctx, "warm-edge")
		again = rec.UID
		return running(w, ok, "", stateManaged) && err == nil && rec.UID != first.UID
	})
	if again != member {
		t.Errorf("the pod run again has UID %s, want the pool member's %s", again, member)
	}
	if err := os.Remove(filepath.Join(e.manifests, "w.yaml")); err != nil {
		t.Fatal(err)
	}
	e.waitFor("warm gone and its pool dropped", func() bool {
		_, ok := e.pod("warm")
		ms, err := rt.ListPoolMembers(ctx)
		return !ok && err == nil && len(ms) == 0
	})
	if err := agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = agent.Wait()
	if entries, _ := os.ReadDir(filepath.Join(e.state, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after the agent's exit: %d entries", len(entries))
	}
}
