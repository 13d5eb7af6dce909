package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Image volumes: an image's unpacked filesystem, mounted read-only in the pod's directory from
// a view snapshot (no copy), as containerd's CRI does. The view is created under the pod's
// lease; Remove unmounts it and removes the view (the lease's deletion would let containerd's
// garbage collector take it too, but not at once).

// ImageViewKey is the snapshot key of the view of a pod's image volume.
func ImageViewKey(podUID, volume string) string { return "podlife-" + podUID + "-image-" + volume }

// mountImageVolumes ensures the image of each image volume (with its pull policy, emitting the
// kubelet's pull events for the pod) and mounts a read-only view of it at the volume's
// directory. ctx carries the pod's lease. An error names the volume.
//
// A failed pull fails it at once, unless Config.ImagePullBackOff is set: then, as for a
// container's own image, the containers that mount the volume wait in ErrImagePull (or
// ErrImageNeverPull) and ImagePullBackOff, and the pull is tried again after the back-off until
// the image is there or ctx ends (the pod stops).
func (p *Worker) mountImageVolumes(ctx context.Context) error {
	for _, v := range p.spec.Volumes {
		if v.Image == nil {
			continue
		}
		img, err := p.imageVolumeWithBackoff(ctx, v)
		if err != nil {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		dir := p.sandbox.VolumeDir(v.Name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		if err := p.rt.Tasks.MountImage(ctx, img, ImageViewKey(p.uid, v.Name), dir); err != nil {
			return fmt.Errorf("volume %q: image %q: %w", v.Name, v.Image.Reference, err)
		}
	}
	return nil
}

// imageVolumeWithBackoff ensures the image of the image volume v, under the pull back-off if
// the Runtime has one (see mountImageVolumes).
func (p *Worker) imageVolumeWithBackoff(ctx context.Context, v Volume) (tasks.Image, error) {
	bo := p.rt.Cfg.ImagePullBackOff
	var delay time.Duration
	for {
		img, err := p.ensure(ctx, "", v.Image.Reference, v.Image.PullPolicy)
		if err == nil || bo == nil || ctx.Err() != nil || errors.Is(err, errInvalidImageRef) {
			if err == nil && delay > 0 {
				p.setWaitingUsers(v.Name, "", "")
			}
			return img, err
		}
		reason := ReasonErrImagePull
		if errors.Is(err, ErrImageNeverPull) {
			reason = ReasonErrImageNeverPull
		}
		msg := fmt.Sprintf("volume %q: %v", v.Name, err)
		p.setWaitingUsers(v.Name, reason, msg)
		p.emit("", EventWarning, ReasonFailed, "Error: "+string(reason)+": "+msg)
		delay = nextPullDelay(delay, *bo)
		backoff := fmt.Sprintf("Back-off pulling image %q", v.Image.Reference)
		p.setWaitingUsers(v.Name, ReasonImagePullBackOff, backoff+" (volume "+strconv.Quote(v.Name)+"): "+string(reason)+": "+err.Error())
		p.emit("", EventNormal, ReasonBackOff, backoff)
		p.emit("", EventWarning, ReasonFailed, "Error: "+string(ReasonImagePullBackOff)+": volume "+strconv.Quote(v.Name))
		timer := p.rt.Clock.NewTimer(delay)
		select {
		case <-timer.C():
		case <-ctx.Done():
			timer.Stop()
			return tasks.Image{}, err
		}
	}
}

// setWaitingUsers sets the waiting state of every init and app container that mounts the
// volume; an empty reason restores the state of a container not created yet.
func (p *Worker) setWaitingUsers(volume string, reason Reason, msg string) {
	for _, c := range append(append([]*Container(nil), p.inits...), p.apps...) {
		for _, m := range c.spec.VolumeMounts {
			if m.Name != volume {
				continue
			}
			r := reason
			if r == "" {
				r = ReasonContainerCreating
				if len(p.spec.InitContainers) > 0 {
					r = ReasonPodInitializing
				}
			}
			c.setWaiting(r, msg)
			break
		}
	}
}

// removeImageViews removes the views of the pod's image volumes (once they are unmounted: see
// Sandbox.RemoveVolumes). A view already gone is not an error.
func (p *Worker) removeImageViews(ctx context.Context) error {
	var errs []error
	for _, v := range p.spec.Volumes {
		if v.Image == nil {
			continue
		}
		if err := p.rt.Tasks.RemoveView(ctx, ImageViewKey(p.uid, v.Name)); err != nil {
			errs = append(errs, fmt.Errorf("volume %q: remove view: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}
