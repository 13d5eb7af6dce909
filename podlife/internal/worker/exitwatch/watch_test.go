package exitwatch

import (
	"errors"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// instance records what Watch did, in order.
type instance struct {
	code   uint32
	err    error
	oom    bool
	closed bool // the pod's loop has ended
	steps  []string
	exit   Exit
}

var at = time.Unix(2000, 0)

// watched is i as Watch sees it, of container c.
func (i *instance) watched(log *slog.Logger) Instance {
	return Instance{Name: "c", ID: "id", Log: log,
		Await:     func() (uint32, time.Time, error) { return i.code, at, i.err },
		OOMKilled: func() bool { i.steps = append(i.steps, "oom?"); return i.oom },
		Message: func(code int) string {
			i.steps = append(i.steps, "message "+strconv.Itoa(code))
			return "bye"
		},
		Record: func(e Exit) *api.StateTerminated {
			i.steps = append(i.steps, "record")
			i.exit = e
			if i.closed {
				return nil
			}
			return e.Terminated(time.Unix(1000, 0))
		},
		Emit: func(t time.Time, typ api.EventType, reason api.Reason, msg string) {
			i.steps = append(i.steps, string(typ)+" "+string(reason)+": "+msg)
		},
		Done:   func() { i.steps = append(i.steps, "done") },
		OnExit: func(term *api.StateTerminated) { i.steps = append(i.steps, "onExit "+string(term.Reason)) },
	}
}

// An exit is read (OOM only for a failure, the termination message), recorded, published as
// an Exited event before Done, then handed on; a lost task is recorded with an unknown status;
// a detached runtime records nothing, a closed loop only ends the watch.
func TestWatch(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name   string
		inst   *instance
		want   []string
		reason api.Reason
	}{
		{"completed", &instance{}, []string{"message 0", "record", "Normal Exited: Container c exited with code 0", "done", "onExit Completed"}, api.ReasonCompleted},
		{"failed", &instance{code: 1}, []string{"oom?", "message 1", "record", "Warning Exited: Container c exited with code 1", "done", "onExit Error"}, api.ReasonError},
		{"OOM killed", &instance{code: 137, oom: true}, []string{"oom?", "message 137", "record", "Warning Exited: Container c exited with code 137", "done", "onExit OOMKilled"}, api.ReasonOOMKilled},
		{"task lost", &instance{err: attempt.ErrTaskLost}, []string{"record", "Normal Exited: Container c exited with code 0", "done", "onExit ContainerStatusUnknown"}, api.ReasonContainerStatusUnknown},
		{"loop ended", &instance{closed: true}, []string{"message 0", "record", "done"}, ""},
		{"detached", &instance{err: errors.New("closed")}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Watch(tc.inst.watched(log))
			if !slices.Equal(tc.inst.steps, tc.want) {
				t.Errorf("steps %q, want %q", tc.inst.steps, tc.want)
			}
			if tc.reason != "" {
				if term := tc.inst.exit.Terminated(time.Unix(1000, 0)); term.Reason != tc.reason || !term.FinishedAt.Equal(at) {
					t.Errorf("terminated %+v, want reason %s at %v", term, tc.reason, at)
				}
			}
		})
	}
}
