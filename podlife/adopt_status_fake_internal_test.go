package podlife

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// status.json's renames are not synced (record.PersistStatus): after a crash of the host the
// file is an earlier whole version, or missing if the first version was not durable. Either
// way, another process reads the pod and an adopter takes it over, its containers running.
func TestFakeAdoptWithStaleOrMissingStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(t *testing.T, path string)
	}{
		{"missing", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"earlier", func(t *testing.T, path string) {
			// The pod's first status: pending, no container started yet.
			var st PodStatus
			b, err := os.ReadFile(path)
			if err == nil {
				err = json.Unmarshal(b, &st)
			}
			if err != nil {
				t.Fatal(err)
			}
			st.Phase, st.ContainerStatuses = PhasePending, nil
			if b, err = json.Marshal(st); err == nil {
				err = os.WriteFile(path, b, 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			r, f, clk := newFakeRuntime(t)
			spec := PodSpec{Name: "stale", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}}}
			if _, err := r.Run(ctx, spec); err != nil {
				t.Fatalf("Run: %v", err)
			}
			closeManager(t, r)
			tc.leave(t, filepath.Join(r.cfg.StateDir, "pods", spec.Name, record.StatusFile))

			a := newFakeAdopter(t, r, f, clk)
			if _, err := a.LookupPod(ctx, spec.Name); err != nil {
				t.Fatalf("LookupPod before the adoption: %v", err)
			}
			p, err := a.Adopt(ctx, spec)
			if err != nil {
				t.Fatalf("Adopt: %v", err)
			}
			st, err := p.WaitFor(ctx, func(s PodStatus) bool { return s.Phase == PhaseRunning })
			if err != nil {
				t.Fatalf("not running after the adoption: %v; status %+v", err, st)
			}
			for _, name := range []string{"a", "b"} {
				if cs := containerStatus(st, name); cs.State.Running == nil || cs.RestartCount != 0 {
					t.Errorf("%s: %+v, want running, never restarted (its task runs)", name, cs)
				}
			}
			if i := f.index("create a#1"); i >= 0 {
				t.Errorf("a running container was created again; calls: %q", f.history())
			}
		})
	}
}
