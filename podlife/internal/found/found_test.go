package found

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// Names lists only valid pod names; a state dir without pods has none; ReadRecord reports a
// missing record as ErrNotFound.
func TestNamesAndReadRecord(t *testing.T) {
	dir := t.TempDir()
	if names, err := Names(dir); err != nil || len(names) != 0 {
		t.Fatalf("Names of an empty state dir = %v, %v", names, err)
	}
	for _, n := range []string{"web", "Not_A_Pod", ".removing-x", "db"} {
		if err := os.MkdirAll(Dir(dir, n), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	names, err := Names(dir)
	if err != nil || len(names) != 2 || names[0] != "db" || names[1] != "web" {
		t.Errorf("Names = %v, %v; want [db web]", names, err)
	}
	var rec struct{ UID string }
	if err := ReadRecord(dir, "web", &rec); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("ReadRecord without pod.json = %v, want ErrNotFound", err)
	}
	if err := os.WriteFile(filepath.Join(Dir(dir, "web"), "pod.json"), []byte(`{"UID":"u1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ReadRecord(dir, "web", &rec); err != nil || rec.UID != "u1" {
		t.Errorf("ReadRecord = %+v, %v", rec, err)
	}
}

// Reconcile: a container whose task still runs stays running (not ready); one whose task
// exited is terminated with its code; one containerd does not know is terminated Unknown;
// Ready and ContainersReady turn False and the phase is the caller's.
func TestReconcile(t *testing.T) {
	started := time.Unix(100, 0)
	running := func(id string) api.ContainerStatus {
		return api.ContainerStatus{Name: id, ContainerID: "containerd://" + id, Ready: true,
			State: api.ContainerState{Running: &api.StateRunning{StartedAt: started}}}
	}
	st := api.PodStatus{
		ContainerStatuses: []api.ContainerStatus{running("a"), running("b"), running("c")},
		Conditions:        []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}},
	}
	state := func(_ context.Context, id string) (ctrd.Status, error) {
		switch id {
		case "a":
			return ctrd.Status{Status: ctrd.Running}, nil
		case "b":
			return ctrd.Status{Status: ctrd.Stopped, ExitStatus: 137, ExitTime: started.Add(time.Second)}, nil
		}
		return ctrd.Status{}, errors.New("not found")
	}
	phase := func(_, _ []api.ContainerStatus) api.Phase { return api.PhaseFailed }
	Reconcile(t.Context(), state, phase, 42, &st, nil)
	cs := st.ContainerStatuses
	if cs[0].State.Running == nil || cs[0].Ready {
		t.Errorf("a: %+v, want running and not ready", cs[0])
	}
	if term := cs[1].State.Terminated; term == nil || term.ExitCode != 137 || term.Signal != 9 || term.Reason != api.ReasonError {
		t.Errorf("b: %+v, want terminated 137 (signal 9, Error)", cs[1].State)
	}
	if term := cs[2].State.Terminated; term == nil || term.ExitCode != -1 || term.Reason != "Unknown" {
		t.Errorf("c: %+v, want terminated Unknown", cs[2].State)
	}
	if st.Phase != api.PhaseFailed || st.Reason != "Unmanaged" || st.Conditions[0].Status != api.ConditionFalse {
		t.Errorf("pod: phase %s, reason %q, conditions %+v", st.Phase, st.Reason, st.Conditions)
	}
}
