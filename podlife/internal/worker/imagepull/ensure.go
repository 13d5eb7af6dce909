package imagepull

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distribution/reference"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// NormalizeRef turns a user's image reference into containerd's full name
// ("busybox" -> "docker.io/library/busybox:latest").
func NormalizeRef(image string) (string, error) {
	named, err := reference.ParseDockerRef(image)
	if err != nil {
		return "", fmt.Errorf("%w %q: %w", ErrInvalidRef, image, err)
	}
	return named.String(), nil
}

// ErrInvalidRef is a reference that cannot name an image: no retry can help.
var ErrInvalidRef = errors.New("invalid image name")

// Store is where images are found and pulled to (the worker's tasks.Runtime).
type Store interface {
	LocalImage(ctx context.Context, ref string) (img tasks.Image, found bool, err error)
	PullImage(ctx context.Context, ref string, creds []api.RegistryCredential) (tasks.Image, error)
}

// Emit records an event about whoever needs the image (a container, or the pod itself for an
// image volume).
type Emit func(typ api.EventType, reason api.Reason, msg string)

// Ensure applies pullPolicy (defaulted at admission) to image and returns it, pulled with creds
// if need be, emitting the kubelet's Pulling/Pulled/Failed/ErrImageNeverPull events.
func Ensure(ctx context.Context, store Store, emit Emit, image string, pullPolicy api.PullPolicy, creds []api.RegistryCredential) (tasks.Image, error) {
	ref, err := NormalizeRef(image)
	if err != nil {
		return tasks.Image{}, err
	}
	if pullPolicy != api.PullAlways {
		img, found, err := store.LocalImage(ctx, ref)
		switch {
		case err != nil:
			return tasks.Image{}, err
		case found:
			emit(api.EventNormal, api.ReasonPulled, fmt.Sprintf("Container image %q already present on machine", image))
			return img, nil
		case pullPolicy == api.PullNever:
			emit(api.EventWarning, api.ReasonErrImageNeverPull,
				fmt.Sprintf("Container image %q is not present with pull policy of Never", image))
			return tasks.Image{}, fmt.Errorf("image %q: %w", image, api.ErrImageNeverPull)
		}
	}
	emit(api.EventNormal, api.ReasonPulling, fmt.Sprintf("Pulling image %q", image))
	start := time.Now()
	img, err := store.PullImage(ctx, ref, creds)
	if err != nil {
		emit(api.EventWarning, api.ReasonFailed, fmt.Sprintf("Failed to pull image %q: %v", image, err))
		return tasks.Image{}, err
	}
	emit(api.EventNormal, api.ReasonPulled, fmt.Sprintf("Successfully pulled image %q in %s. Image size: %d bytes.",
		image, time.Since(start).Round(time.Millisecond), img.Size))
	return img, nil
}
