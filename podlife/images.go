package podlife

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

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
