package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// imageWithBackoff gets the container's image. A failed pull fails it at once, unless
// Config.ImagePullBackOff is set: then the container waits as on a kubelet, in ErrImagePull (or
// ErrImageNeverPull) and then ImagePullBackOff, and the image is tried again after the back-off
// until it is there or ctx ends.
func (c *Container) imageWithBackoff(ctx context.Context) (tasks.Image, error) {
	p := c.pod
	bo := p.rt.Cfg.ImagePullBackOff
	delay := time.Duration(0)
	for {
		img, err := p.ensureImage(ctx, c.spec)
		if err == nil || bo == nil || ctx.Err() != nil || errors.Is(err, errInvalidImageRef) {
			return img, err
		}
		reason := ReasonErrImagePull
		if errors.Is(err, ErrImageNeverPull) {
			reason = ReasonErrImageNeverPull
		}
		c.setWaiting(reason, err.Error())
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+string(reason))
		delay = nextPullDelay(delay, *bo)
		msg := fmt.Sprintf("Back-off pulling image %q", c.spec.Image)
		c.setWaiting(ReasonImagePullBackOff, msg+": "+string(reason)+": "+err.Error())
		p.emit(c.spec.Name, EventNormal, ReasonBackOff, msg)
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+string(ReasonImagePullBackOff))
		timer := p.rt.Clock.NewTimer(delay)
		select {
		case <-timer.C():
		case <-ctx.Done():
			timer.Stop()
			return tasks.Image{}, err
		}
	}
}

// nextPullDelay is the back-off after one more failure, prev being the one before it (0 for
// none): Initial, then doubling up to Max (bo has its defaults: see withPullDefaults).
func nextPullDelay(prev time.Duration, bo PullBackoff) time.Duration {
	if prev <= 0 {
		return min(bo.Initial, bo.Max)
	}
	return min(2*prev, bo.Max)
}
