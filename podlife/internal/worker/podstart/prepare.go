package podstart

import (
	"context"
	"errors"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Prep is one container's preparation as the worker gives it to Prepare: everything for its
// first instance that does not depend on the start order. I is the image's handle.
type Prep[I any] struct {
	Pod, Container string
	// Image gets the image, under the pull back-off (imagepull.Get).
	Image func(ctx context.Context) (I, error)
	// UseImage reads the image's config and records what the container takes from it.
	UseImage func(ctx context.Context, img I) error
	// VerifyNonRoot checks runAsNonRoot against the image's user: its error is a
	// CreateContainerConfigError (it wraps api.ErrCreateContainerConfig).
	VerifyNonRoot func() error
	// WaitNetwork, if set, waits for the pod's network attach (the container's environment
	// has the pod's IP) and returns its failure.
	WaitNetwork func(ctx context.Context) error
	// Create creates the instance (its container and task, runc create) and records it as
	// the container's current one.
	Create func(ctx context.Context) error
	// ShimAborted is the error of a create that did not happen because the pod's shim will
	// not come (another container's failure).
	ShimAborted error
	// SetWaiting sets the container's waiting state; Emit emits an event about it.
	SetWaiting func(reason api.Reason, msg string)
	Emit       func(typ api.EventType, reason api.Reason, msg string)
}

// Prepare prepares a container (image, config checks, container, task, log file; the process is
// not started) and returns the failure the start sequence sees: ctx's error if it was
// cancelled (by a stop or a failed sibling: not this container's failure), the network's
// failure, or a *StartError with the container waiting in the kubelet's reason.
func Prepare[I any](ctx context.Context, c Prep[I]) error {
	failed := func(step api.Step, reason api.Reason, err error, event bool) error {
		if event {
			c.Emit(api.EventWarning, api.ReasonFailed, "Error: "+err.Error())
		}
		c.SetWaiting(reason, err.Error())
		return &api.StartError{Pod: c.Pod, Container: c.Container, Step: step, Err: err}
	}
	img, err := c.Image(ctx)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		reason := api.ReasonErrImagePull
		if errors.Is(err, api.ErrImageNeverPull) {
			reason = api.ReasonErrImageNeverPull
		}
		return failed(api.StepPull, reason, err, false)
	}
	if err := c.UseImage(ctx, img); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The image is there but its config cannot be used (containerd's CRI fails the create).
		return failed(api.StepCreate, api.ReasonCreateContainerError, err, true)
	}
	if err := c.VerifyNonRoot(); err != nil {
		// Not a setup failure: the pod stays and its other containers start (the kubelet
		// admits the pod and reports this container's error in its status).
		return failed(api.StepCreate, api.ReasonCreateContainerConfigError, err, true)
	}
	if c.WaitNetwork != nil {
		// Created before the network is attached, as the other containers are, it would
		// read no pod IP: the kubelet creates containers once the sandbox has its IP.
		if err := c.WaitNetwork(ctx); err != nil {
			return err // the network's failure (or a stop), reported as the pod's
		}
	}
	if err := c.Create(ctx); err != nil {
		if errors.Is(err, c.ShimAborted) || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// The pod's shim will not come, or the wait for it was cancelled: another
			// container's failure or a stop. Any other error is this container's own (the
			// create itself is not cancellable).
			return err
		}
		return failed(api.StepCreate, api.ReasonCreateContainerError, err, true)
	}
	c.Emit(api.EventNormal, api.ReasonCreated, "Created container: "+c.Container)
	return nil
}
