package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
)

// Image volumes: an image's unpacked filesystem, mounted read-only in the pod's directory from
// a view snapshot (no copy), as containerd's CRI does. The view is created under the pod's
// lease; Remove unmounts it and removes the view (the lease's deletion would let containerd's
// garbage collector take it too, but not at once).

// ImageViewKey is the snapshot key of the view of a pod's image volume (see imagepull.ViewKey).
func ImageViewKey(podUID, volume string) string { return imagepull.ViewKey(podUID, volume) }

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
		img, err := p.getImage(ctx, imagepull.Request{Image: v.Image.Reference, PullPolicy: v.Image.PullPolicy, Volume: v.Name,
			SetWaiting: func(reason Reason, msg string) { p.setWaitingUsers(v.Name, reason, msg) }, Emit: p.emitter("")})
		if err != nil {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		dir := p.sandbox.VolumeDir(v.Name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		if err := p.host.Tasks.MountImage(ctx, img, ImageViewKey(p.uid, v.Name), dir); err != nil {
			return fmt.Errorf("volume %q: image %q: %w", v.Name, v.Image.Reference, err)
		}
	}
	return nil
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
		if err := p.host.Tasks.RemoveView(ctx, ImageViewKey(p.uid, v.Name)); err != nil {
			errs = append(errs, fmt.Errorf("volume %q: remove view: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}
