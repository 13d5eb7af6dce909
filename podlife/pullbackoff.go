package podlife

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
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
func (c *Container) imageWithBackoff(ctx context.Context) (tasks.Image, error) {
	p := c.pod
	bo := p.rt.cfg.ImagePullBackOff
	delay := time.Duration(0)
	for {
		img, err := p.ensureImage(ctx, c.spec)
		if err == nil || bo == nil || ctx.Err() != nil || errors.Is(err, errInvalidImageRef) {
			return img, err
		}
		reason := api.ReasonErrImagePull
		if errors.Is(err, ErrImageNeverPull) {
			reason = api.ReasonErrImageNeverPull
		}
		c.setWaiting(reason, err.Error())
		p.emit(c.spec.Name, EventWarning, api.ReasonFailed, "Error: "+string(reason))
		delay = nextPullDelay(delay, *bo)
		msg := fmt.Sprintf("Back-off pulling image %q", c.spec.Image)
		c.setWaiting(api.ReasonImagePullBackOff, msg+": "+string(reason)+": "+err.Error())
		p.emit(c.spec.Name, EventNormal, api.ReasonBackOff, msg)
		p.emit(c.spec.Name, EventWarning, api.ReasonFailed, "Error: "+string(api.ReasonImagePullBackOff))
		timer := p.rt.clock.NewTimer(delay)
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
func nextPullDelay(prev time.Duration, bo Backoff) time.Duration {
	if prev <= 0 {
		return min(bo.Initial, bo.Max)
	}
	return min(2*prev, bo.Max)
}

// withPullDefaults is the image pull back-off with the kubelet's values in its zero (or
// negative) fields: Initial 10 s, Max 300 s (Config.withDefaults applies it).
func (b Backoff) withPullDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = defaultPullBackoffInitial
	}
	if b.Max <= 0 {
		b.Max = defaultPullBackoffMax
	}
	return b
}
