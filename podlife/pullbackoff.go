package podlife

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The kubelet's image pull back-off (pkg/kubelet/images: 10 s, doubling, up to 300 s).
const (
	defaultPullBackoffInitial = 10 * time.Second
	defaultPullBackoffMax     = 300 * time.Second
)

// imageWithBackoff gets the container's image. A failed pull fails it at once, unless
// Config.ImagePullBackOff is set: then the container waits as on a kubelet, in ErrImagePull (or
// ErrImageNeverPull) and then ImagePullBackOff, and the image is tried again after the back-off
// until it is there or ctx ends.
func (c *Container) imageWithBackoff(ctx context.Context) (podImage, error) {
	p := c.pod
	bo := p.rt.cfg.ImagePullBackOff
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
		timer := p.rt.clock.NewTimer(delay)
		select {
		case <-timer.C():
		case <-ctx.Done():
			timer.Stop()
			return podImage{}, err
		}
	}
}

// nextPullDelay is the back-off after one more failure, prev being the one before it (0 for
// none): Initial, then doubling up to Max (the kubelet's defaults for zero fields).
func nextPullDelay(prev time.Duration, bo Backoff) time.Duration {
	initial, maxDelay := bo.Initial, bo.Max
	if initial <= 0 {
		initial = defaultPullBackoffInitial
	}
	if maxDelay <= 0 {
		maxDelay = defaultPullBackoffMax
	}
	if prev <= 0 {
		return min(initial, maxDelay)
	}
	return min(2*prev, maxDelay)
}
