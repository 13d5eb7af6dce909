package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"

	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
)

// NormalizeRef turns a user's image reference into containerd's full name (see
// imagepull.NormalizeRef).
func NormalizeRef(image string) (string, error) { return imagepull.NormalizeRef(image) }

// getImage gets r's image with the pod's pull credentials, under the Runtime's pull back-off.
func (p *Worker) getImage(ctx context.Context, r imagepull.Request) (tasks.Image, error) {
	r.Creds = p.spec.PullCredentials
	var bo *imagepull.Backoff
	if b := p.host.Cfg.ImagePullBackOff; b != nil {
		bo = &imagepull.Backoff{Initial: b.Initial, Max: b.Max}
	}
	return imagepull.Get(ctx, p.host.Tasks, p.host.Clock, bo, r)
}

// emitter emits the pod's events about container ("" for the pod itself).
func (p *Worker) emitter(container string) imagepull.Emit {
	return func(typ EventType, reason Reason, msg string) { p.emit(container, typ, reason, msg) }
}
