package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distribution/reference"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// NormalizeRef turns a user's image reference into containerd's full name
// ("busybox" -> "docker.io/library/busybox:latest").
func NormalizeRef(image string) (string, error) {
	named, err := reference.ParseDockerRef(image)
	if err != nil {
		return "", fmt.Errorf("%w %q: %w", errInvalidImageRef, image, err)
	}
	return named.String(), nil
}

// errInvalidImageRef is a reference that cannot name an image: no retry can help.
var errInvalidImageRef = errors.New("invalid image name")

// ensureImage applies the container's pull policy and returns the image, emitting the kubelet's
// Pulling/Pulled/Failed/ErrImageNeverPull events.
func (p *Worker) ensureImage(ctx context.Context, c *ContainerSpec) (tasks.Image, error) {
	return p.ensure(ctx, c.Name, c.Image, c.ImagePullPolicy)
}

// ensure applies pull policy to image and returns it, emitting the kubelet's events about
// container (empty for the pod itself, as for an image volume).
func (p *Worker) ensure(ctx context.Context, container, image string, pullPolicy PullPolicy) (tasks.Image, error) {
	tr := p.rt.Tasks
	ref, err := NormalizeRef(image)
	if err != nil {
		return tasks.Image{}, err
	}
	policy := pullPolicy // defaulted at admission (defaultPullPolicy)
	if policy != PullAlways {
		img, found, err := tr.LocalImage(ctx, ref)
		switch {
		case err != nil:
			return tasks.Image{}, err
		case found:
			p.emit(container, EventNormal, ReasonPulled, fmt.Sprintf("Container image %q already present on machine", image))
			return img, nil
		case policy == PullNever:
			p.emit(container, EventWarning, ReasonErrImageNeverPull,
				fmt.Sprintf("Container image %q is not present with pull policy of Never", image))
			return tasks.Image{}, fmt.Errorf("image %q: %w", image, ErrImageNeverPull)
		}
	}
	p.emit(container, EventNormal, ReasonPulling, fmt.Sprintf("Pulling image %q", image))
	start := time.Now()
	img, err := tr.PullImage(ctx, ref, p.spec.PullCredentials)
	if err != nil {
		p.emit(container, EventWarning, ReasonFailed, fmt.Sprintf("Failed to pull image %q: %v", image, err))
		return tasks.Image{}, err
	}
	p.emit(container, EventNormal, ReasonPulled, fmt.Sprintf("Successfully pulled image %q in %s. Image size: %d bytes.",
		image, time.Since(start).Round(time.Millisecond), img.Size))
	return img, nil
}
