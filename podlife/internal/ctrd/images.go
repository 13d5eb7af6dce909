package ctrd

import (
	"context"
	"fmt"
	"io"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/images/archive"
	"github.com/containerd/containerd/v2/core/mount"
	"github.com/containerd/containerd/v2/core/remotes/docker"
	"github.com/containerd/errdefs"
	"github.com/containerd/platforms"
	"github.com/opencontainers/image-spec/identity"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Image is an image of the client's namespace.
type Image struct {
	Name string // containerd's image name (a full reference)
	ID   string // the digest of its target (manifest or index)
	Size int64  // its size in the content store, when known (0 if not)
	img  client.Image
}

func imageOf(img client.Image) Image {
	return Image{Name: img.Name(), ID: img.Target().Digest.String(), img: img}
}

// LocalImage returns the image ref if it is present, unpacked for the client's snapshotter
// (unpacking it if it is not yet); found is false (and err nil) if it is not present.
func (c *Client) LocalImage(ctx context.Context, ref string) (img Image, found bool, err error) {
	i, err := c.c.GetImage(ctx, ref)
	if errdefs.IsNotFound(err) {
		return Image{}, false, nil
	}
	if err != nil {
		return Image{}, false, err
	}
	i = c.cached(i)
	if ok, _ := c.isUnpacked(ctx, i); !ok {
		if err := i.Unpack(ctx, c.snapshotter); err != nil {
			return Image{}, false, fmt.Errorf("unpack %s: %w", ref, err)
		}
	}
	return imageOf(i), true, nil
}

// Credentials returns the user name and password (or token) for a registry host; empty strings
// for anonymous access.
type Credentials func(host string) (user, secret string, err error)

// Pull pulls ref (localhost and 127.0.0.1 registries over plain HTTP) and unpacks it for the
// client's snapshotter, under a temporary lease. Its Size is set.
func (c *Client) Pull(ctx context.Context, ref string, creds Credentials) (Image, error) {
	authorizer := docker.NewDockerAuthorizer(docker.WithAuthCreds(creds))
	resolver := docker.NewResolver(docker.ResolverOptions{Hosts: docker.ConfigureDefaultRegistries(
		docker.WithAuthorizer(authorizer), docker.WithPlainHTTP(docker.MatchLocalhost))})
	ctx, done, err := c.c.WithLease(ctx)
	if err != nil {
		return Image{}, err
	}
	defer done(context.WithoutCancel(ctx))
	opts := []client.RemoteOpt{client.WithResolver(resolver), client.WithPullUnpack}
	if c.snapshotter != "" {
		opts = append(opts, client.WithPullSnapshotter(c.snapshotter))
	}
	i, err := c.c.Pull(ctx, ref, opts...)
	if err != nil {
		return Image{}, fmt.Errorf("failed to pull image %q: %w", ref, err)
	}
	img := imageOf(c.cached(i))
	img.Size, _ = i.Size(ctx)
	return img, nil
}

// Import imports an OCI or Docker image archive and unpacks, of each image, the manifest for
// this host's platform, under a temporary lease. It returns the names of the images imported
// (those unpacked before a failure, with the error).
func (c *Client) Import(ctx context.Context, archiveReader io.Reader) ([]string, error) {
	ctx, done, err := c.c.WithLease(ctx)
	if err != nil {
		return nil, err
	}
	defer done(context.WithoutCancel(ctx))
	imgs, err := c.c.Import(ctx, archiveReader, client.WithImportCompression(),
		client.WithImageRefTranslator(archive.AddRefPrefix("")), client.WithAllPlatforms(false))
	if err != nil {
		return nil, fmt.Errorf("import image: %w", err)
	}
	names := make([]string, 0, len(imgs))
	for _, i := range imgs {
		// This host's platform, as a pull picks it: without one, the unpack takes the first
		// manifest of a multi-platform index, whatever its architecture.
		img := client.NewImageWithPlatform(c.c, i, platforms.Default())
		if err := img.Unpack(ctx, c.snapshotter); err != nil {
			return names, fmt.Errorf("unpack %s: %w", i.Name, err)
		}
		names = append(names, i.Name)
	}
	return names, nil
}

// Images lists the images of the namespace, with their sizes (0 for an image whose content is
// not fully present).
func (c *Client) Images(ctx context.Context) ([]Image, error) {
	imgs, err := c.c.ListImages(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Image, 0, len(imgs))
	for _, i := range imgs {
		img := imageOf(i)
		if size, err := i.Size(ctx); err == nil {
			img.Size = size
		}
		out = append(out, img)
	}
	return out, nil
}

// Config reads an image's config.
func (c *Client) Config(ctx context.Context, img Image) (ocispec.Image, error) {
	return img.img.Spec(ctx)
}

// MountView creates the read-only view snapshot key of img's unpacked filesystem (or takes the
// one that exists) and mounts it on the directory target.
func (c *Client) MountView(ctx context.Context, img Image, key, target string) error {
	diffIDs, err := img.img.RootFS(ctx)
	if err != nil {
		return fmt.Errorf("read its layers: %w", err)
	}
	sn := c.c.SnapshotService(c.snapshotter)
	mounts, err := sn.View(ctx, key, identity.ChainID(diffIDs).String())
	if errdefs.IsAlreadyExists(err) {
		mounts, err = sn.Mounts(ctx, key)
	}
	if err != nil {
		return fmt.Errorf("view snapshot: %w", err)
	}
	if err := mount.All(mounts, target); err != nil {
		return fmt.Errorf("mount view: %w", err)
	}
	return nil
}

// RemoveView removes the snapshot key; one that does not exist is not an error.
func (c *Client) RemoveView(ctx context.Context, key string) error {
	err := c.c.SnapshotService(c.snapshotter).Remove(ctx, key)
	if errdefs.IsNotFound(err) {
		return nil
	}
	return err
}

// ImageDigest returns the digest the image name ref points to in containerd's image store (one
// metadata read: nothing is unpacked); found is false (and err nil) if there is no such image.
func (c *Client) ImageDigest(ctx context.Context, ref string) (digest string, found bool, err error) {
	i, err := c.c.ImageService().Get(ctx, ref)
	if errdefs.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return i.Target.Digest.String(), true, nil
}
