package remote

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// SetCondition sets a condition of the named pod that this Runtime does not manage (see
// podlife's Pod.SetCondition): its manager is asked through its control socket. A pod without
// a live manager has no conditions to change: that is an error wrapping api.ErrNotFound.
func SetCondition(ctx context.Context, stateDir, pod string, t conditions.Type, status conditions.Status, reason, message string) error {
	if err := podupdate.ValidateCondition(pod, t, status); err != nil {
		return fmt.Errorf("set condition: %w", err)
	}
	return ask(ctx, stateDir, control.Request{Op: "condition", Pod: pod,
		Condition: &control.ConditionRequest{Type: t, Status: status, Reason: reason, Message: message}})
}

// SetDeadline sets the active deadline of the named pod that this Runtime does not manage (see
// podlife's Pod.SetActiveDeadline): its manager is asked through its control socket. A pod
// without a live manager is an error wrapping api.ErrNotFound.
func SetDeadline(ctx context.Context, stateDir, pod string, d time.Duration) error {
	if err := podupdate.CheckDeadlineUpdate(pod, nil, d); err != nil {
		return fmt.Errorf("set active deadline: %w", err)
	}
	return ask(ctx, stateDir, control.Request{Op: "deadline", Pod: pod, Deadline: &d})
}

// AddEphemeral adds an ephemeral container to the named pod that this Runtime does not manage
// (see podlife's Pod.AddEphemeralContainer): its manager is asked through its control socket,
// and only the fields that can travel are sent. A pod without a live manager cannot get one:
// an error wrapping api.ErrNotFound.
func AddEphemeral(ctx context.Context, stateDir, pod string, spec api.EphemeralContainerSpec) error {
	req, err := control.NewEphemeral(pod, spec)
	if err != nil {
		return err
	}
	return ask(ctx, stateDir, control.Request{Op: "ephemeral", Pod: pod, Ephemeral: req})
}

// ask sends req to the control socket of the manager of req.Pod, which the pod's record names,
// and waits for the answer; no manager is an error wrapping api.ErrNotFound.
func ask(ctx context.Context, stateDir string, req control.Request) error {
	var rec record.Record
	if err := found.ReadRecord(stateDir, req.Pod, &rec); err != nil {
		return err
	}
	err := control.Ask(ctx, rec.Control, req)
	if errors.Is(err, control.ErrNoManager) {
		return fmt.Errorf("pod %q: no process manages it (pid %d is gone): %w", req.Pod, rec.OwnerPID, api.ErrNotFound)
	}
	return err
}
