package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"cmp"
	"context"
	"slices"

	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// getImage gets r's image with the pod's pull credentials, under the Runtime's pull back-off.
func (p *Worker) getImage(ctx context.Context, r imagepull.Request) (tasks.Image, error) {
	r.Creds = p.spec.PullCredentials
	return imagepull.Get(ctx, p.host.Tasks, p.host.Clock, p.host.Cfg.ImagePullBackOff, r)
}

// emitter emits the pod's events about container ("" for the pod itself).
func (p *Worker) emitter(container string) imagepull.Emit {
	return func(typ EventType, reason Reason, msg string) { p.emit(container, typ, reason, msg) }
}

// mountImageVolumes mounts the pod's image volumes (see imagepull.MountVolumes), their images
// got with their pull policies under the pull back-off (see getImage), which sets the waiting
// state of the containers that mount them. ctx carries the pod's lease.
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
		if slices.ContainsFunc(c.spec.VolumeMounts, func(m VolumeMount) bool { return m.Name == volume }) {
			c.setWaiting(cmp.Or(reason, status.Creating(len(p.spec.InitContainers) > 0)), msg)
		}
	}
}

// removeImageViews removes the views of the pod's image volumes (see imagepull.RemoveViews).
func (p *Worker) removeImageViews(ctx context.Context) error {
	return imagepull.RemoveViews(ctx, p.host.Tasks, p.uid, p.spec.Volumes)
}
