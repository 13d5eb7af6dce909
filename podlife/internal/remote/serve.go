package remote

import (
	"context"
	"fmt"

	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/worker"
)

// Do does a request of the Runtime's control socket (another process asking) on w, the
// worker of the pod the request names: the serving side of SetCondition, SetDeadline,
// AddEphemeral and of adopt.Adopter.Foreign's stop and remove.
func Do(w *worker.Worker, req control.Request) error {
	// The caller's wait may end; the stop or removal goes on as Pod.Stop's does.
	ctx := context.Background()
	switch req.Op {
	case "stop":
		return w.Stop(ctx, worker.StopOptions{Grace: req.Grace})
	case "remove":
		if req.Grace != nil {
			_ = w.Stop(ctx, worker.StopOptions{Grace: req.Grace})
		}
		return w.Remove(ctx)
	case "condition":
		c := req.Condition
		return w.SetCondition(c.Type, c.Status, c.Reason, c.Message)
	case "ephemeral":
		_, err := w.AddEphemeralContainer(ctx, req.Ephemeral.Spec())
		return err
	case "deadline":
		return w.SetActiveDeadline(*req.Deadline)
	}
	return fmt.Errorf("control: unknown op %q", req.Op)
}
