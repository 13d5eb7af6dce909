package podlife

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/distribution/reference"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// normalizeRef turns a user's image reference into containerd's full name
// ("busybox" -> "docker.io/library/busybox:latest").
func normalizeRef(image string) (string, error) {
	named, err := reference.ParseDockerRef(image)
	if err != nil {
		return "", fmt.Errorf("%w %q: %w", errInvalidImageRef, image, err)
	}
	return named.String(), nil
}

// errInvalidImageRef is a reference that cannot name an image: no retry can help.
var errInvalidImageRef = errors.New("invalid image name")

// ImportImage imports an OCI or Docker image archive (as written by `docker save`, `ctr images
// export` or podlifetest.BusyboxArchive) and unpacks it for the runtime's snapshotter: the way to
// get images onto a host without a registry. Of a multi-platform image, the manifest for this
// host's platform is unpacked (it fails if there is none). It returns the names of the imported
// images.
func (r *Runtime) ImportImage(ctx context.Context, archiveReader io.Reader) ([]string, error) {
	names, err := r.ctrd.Import(r.ctx(ctx), archiveReader)
	if err != nil {
		return names, fmt.Errorf("podlife: %w", err)
	}
	return names, nil
}

// Image is an image in the runtime's containerd namespace.
type Image struct {
	Name   string // its full reference, e.g. docker.io/library/busybox:1.36
	Digest string // the digest of its manifest (or index)
	Size   int64  // the size of its content in the content store, in bytes
}

// Images lists the runtime's images (imported or pulled), sorted by name.
func (r *Runtime) Images(ctx context.Context) ([]Image, error) {
	ctx = r.ctx(ctx)
	imgs, err := r.ctrd.Images(ctx)
	if err != nil {
		return nil, fmt.Errorf("podlife: list images: %w", err)
	}
	out := make([]Image, 0, len(imgs))
	for _, img := range imgs {
		// Size 0: content not (fully) present; listed all the same.
		out = append(out, Image{Name: img.Name, Digest: img.ID, Size: img.Size})
	}
	slices.SortFunc(out, func(a, b Image) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// PullImage pulls and unpacks an image from its registry, with the given credentials (or the
// Config's Credentials callback). localhost and 127.0.0.1 registries are reached over plain HTTP.
func (r *Runtime) PullImage(ctx context.Context, image string, creds ...RegistryCredential) error {
	ref, err := normalizeRef(image)
	if err != nil {
		return err
	}
	_, err = r.tasks.PullImage(r.ctx(ctx), ref, creds)
	return err
}

// ensureImage applies the container's pull policy and returns the image, emitting the kubelet's
// Pulling/Pulled/Failed/ErrImageNeverPull events.
func (p *podWorker) ensureImage(ctx context.Context, c *ContainerSpec) (tasks.Image, error) {
	return p.ensure(ctx, c.Name, c.Image, c.ImagePullPolicy)
}

// ensure applies pull policy to image and returns it, emitting the kubelet's events about
// container (empty for the pod itself, as for an image volume).
func (p *podWorker) ensure(ctx context.Context, container, image string, pullPolicy PullPolicy) (tasks.Image, error) {
	tr := p.rt.tasks
	ref, err := normalizeRef(image)
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
			p.emit(container, EventNormal, api.ReasonPulled, fmt.Sprintf("Container image %q already present on machine", image))
			return img, nil
		case policy == PullNever:
			p.emit(container, EventWarning, api.ReasonErrImageNeverPull,
				fmt.Sprintf("Container image %q is not present with pull policy of Never", image))
			return tasks.Image{}, fmt.Errorf("image %q: %w", image, ErrImageNeverPull)
		}
	}
	p.emit(container, EventNormal, api.ReasonPulling, fmt.Sprintf("Pulling image %q", image))
	start := time.Now()
	img, err := tr.PullImage(ctx, ref, p.spec.PullCredentials)
	if err != nil {
		p.emit(container, EventWarning, api.ReasonFailed, fmt.Sprintf("Failed to pull image %q: %v", image, err))
		return tasks.Image{}, err
	}
	p.emit(container, EventNormal, api.ReasonPulled, fmt.Sprintf("Successfully pulled image %q in %s. Image size: %d bytes.",
		image, time.Since(start).Round(time.Millisecond), img.Size))
	return img, nil
}
