package podstart

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// ErrPodFailed ends the start sequence of a pod that failed on its own (an init container
// failed under restartPolicy Never): the pod stays, Failed, for inspection.
var ErrPodFailed = errors.New("pod failed")

// RootPrepError returns, of the containers' preparations' failures, the one that explains the
// others: in a shared shim, one container's failed create makes containerd shut the shim down
// (the runc shim counts only the tasks it has made, not the creates in flight), and a
// sibling's create in flight then fails with "ttrpc: closed", or, opening its output FIFOs,
// with the shim's "failed: shutdown": only a consequence. shimAborted is the error of a create
// that did not happen for that reason.
func RootPrepError(errs []error, shimAborted error) error {
	var collateral error
	for _, err := range errs {
		switch {
		case err == nil || errors.Is(err, context.Canceled) || errors.Is(err, shimAborted) || errors.Is(err, api.ErrCreateContainerConfig):
		case strings.Contains(err.Error(), "ttrpc: closed") || strings.HasSuffix(err.Error(), "failed: shutdown"):
			collateral = cmp.Or(collateral, err)
		default:
			return err
		}
	}
	return collateral
}

// SetupError prefers the setup failure that cancelled the sequence (ctx's cause) over the
// cancellation itself.
func SetupError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// AppsResult is the start sequence's outcome from the start policy's error: the sequence's
// cancel cause first; nothing once the pod is stopping; a postStart failure is not the start's;
// a container's CreateContainerConfigError leaves the pod (the worker's), so any other
// container's failure goes first.
func AppsResult(seqCtx context.Context, err error, stopping bool) error {
	if cause := context.Cause(seqCtx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if err == nil || stopping {
		return nil
	}
	var configErr error
	var se *api.StartError
	for _, e := range api.UnwrapJoined(err) {
		switch {
		case !errors.As(e, &se) || se.Step == api.StepPostStart:
		case errors.Is(e, api.ErrCreateContainerConfig):
			configErr = cmp.Or(configErr, e)
		default:
			return e
		}
	}
	return configErr
}
