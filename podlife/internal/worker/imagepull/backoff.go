package imagepull

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Backoff is the image pull back-off (Config.ImagePullBackOff, defaults applied).
type Backoff struct {
	Initial, Max time.Duration
}

// Request is an image to get and who waits for it: a container (its own image) or the
// containers that mount an image volume.
type Request struct {
	Image      string // as the spec writes it
	PullPolicy api.PullPolicy
	Creds      []api.RegistryCredential
	// Volume is the image volume's name; empty for a container's own image.
	Volume string
	// SetWaiting sets the waiting state of who waits for the image. After failed pulls of an
	// image volume's image, a success calls it with an empty reason: back to the state before.
	SetWaiting func(reason api.Reason, msg string)
	// Emit records the pull's events (see Ensure) and the back-off's.
	Emit Emit
}

// Get ensures r's image (see Ensure). A failed pull fails it at once, unless bo is set: then
// who waits for the image waits as on a kubelet, in ErrImagePull (or ErrImageNeverPull) and
// then ImagePullBackOff, and the image is tried again after the back-off (timed by clk) until it
// is there or ctx ends. An invalid reference is never tried again.
func Get(ctx context.Context, store Store, clk clock.Clock, bo *Backoff, r Request) (tasks.Image, error) {
	var delay time.Duration
	for {
		img, err := Ensure(ctx, store, r.Emit, r.Image, r.PullPolicy, r.Creds)
		if err == nil || bo == nil || ctx.Err() != nil || errors.Is(err, ErrInvalidRef) {
			if err == nil && delay > 0 && r.Volume != "" {
				r.SetWaiting("", "")
			}
			return img, err
		}
		reason := api.ReasonErrImagePull
		if errors.Is(err, api.ErrImageNeverPull) {
			reason = api.ReasonErrImageNeverPull
		}
		backoff := fmt.Sprintf("Back-off pulling image %q", r.Image)
		waiting, failed, failedBackOff := err.Error(), "Error: "+string(reason), "Error: "+string(api.ReasonImagePullBackOff)
		backoffWaiting := backoff
		if r.Volume != "" {
			q := strconv.Quote(r.Volume)
			waiting = "volume " + q + ": " + err.Error()
			failed += ": " + waiting
			failedBackOff += ": volume " + q
			backoffWaiting += " (volume " + q + ")"
		}
		r.SetWaiting(reason, waiting)
		r.Emit(api.EventWarning, api.ReasonFailed, failed)
		delay = NextDelay(delay, *bo)
		r.SetWaiting(api.ReasonImagePullBackOff, backoffWaiting+": "+string(reason)+": "+err.Error())
		r.Emit(api.EventNormal, api.ReasonBackOff, backoff)
		r.Emit(api.EventWarning, api.ReasonFailed, failedBackOff)
		timer := clk.NewTimer(delay)
		select {
		case <-timer.C():
		case <-ctx.Done():
			timer.Stop()
			return tasks.Image{}, err
		}
	}
}

// NextDelay is the back-off after one more failure, prev being the one before it (0 for
// none): Initial, then doubling up to Max (bo has its defaults: see withPullDefaults).
func NextDelay(prev time.Duration, bo Backoff) time.Duration {
	if prev <= 0 {
		return min(bo.Initial, bo.Max)
	}
	return min(2*prev, bo.Max)
}
