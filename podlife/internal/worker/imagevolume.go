package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"

	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
)

// ImageViewKey is the snapshot key of the view of a pod's image volume (see imagepull.ViewKey).
func ImageViewKey(podUID, volume string) string { return imagepull.ViewKey(podUID, volume) }

// mountImageVolumes mounts the pod's image volumes (see imagepull.MountVolumes), their images
// got with their pull policies, emitting the kubelet's pull events for the pod. ctx carries the
// pod's lease.
//
// A failed pull fails it at once, unless Config.ImagePullBackOff is set: then, as for a
// container's own image, the containers that mount the volume wait in ErrImagePull (or
// ErrImageNeverPull) and ImagePullBackOff, and the pull is tried again after the back-off until
// the image is there or ctx ends (the pod stops).
func (p *Worker) mountImageVolumes(ctx context.Context) error {
	return imagepull.MountVolumes(ctx, p.host.Tasks, p.uid, p.spec.Volumes, p.sandbox.VolumeDir, func(ctx context.Context, v Volume) (tasks.Image, error) {
		return p.getImage(ctx, imagepull.Request{Image: v.Image.Reference, PullPolicy: v.Image.PullPolicy, Volume: v.Name,
			SetWaiting: func(reason Reason, msg string) { p.setWaitingUsers(v.Name, reason, msg) }, Emit: p.emitter("")})
	})
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

// removeImageViews removes the views of the pod's image volumes (see imagepull.RemoveViews).
func (p *Worker) removeImageViews(ctx context.Context) error {
	return imagepull.RemoveViews(ctx, p.host.Tasks, p.uid, p.spec.Volumes)
}
