package ctrd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/content"
	"github.com/containerd/containerd/v2/defaults"
	"github.com/containerd/errdefs"
	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/identity"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// An image's metadata blobs (index, manifest, config) are read several times for each
// container made from it: its unpack check, its config for the container's settings, the
// spec's defaults and the snapshot's parent each read the manifest and the config, an Info and
// a Read request each. They are content-addressed: the bytes of a digest never change, so
// blobCache keeps the small ones read and the image handles of a Client read through it.
const (
	maxCachedBlob  = 1 << 20 // a larger blob (a layer) is never kept
	maxCachedBytes = 8 << 20 // past this, the cache starts over
)

// blobCache is a content store whose small blobs, once read and verified, are read from memory.
type blobCache struct {
	content.Store
	mu    sync.Mutex
	blobs map[digest.Digest][]byte
	size  int
}

func newBlobCache(cs content.Store) *blobCache {
	return &blobCache{Store: cs, blobs: map[digest.Digest][]byte{}}
}

// ReaderAt reads desc from memory if it was read before; a small blob is read whole, checked
// against its digest and kept.
func (b *blobCache) ReaderAt(ctx context.Context, desc ocispec.Descriptor) (content.ReaderAt, error) {
	if blob, ok := b.get(desc.Digest); ok {
		return bytesReaderAt{bytes.NewReader(blob)}, nil
	}
	if desc.Size <= 0 || desc.Size > maxCachedBlob {
		return b.Store.ReaderAt(ctx, desc)
	}
	blob, err := content.ReadBlob(ctx, b.Store, desc)
	if err != nil {
		return nil, err
	}
	if desc.Digest.Validate() != nil || desc.Digest.Algorithm().FromBytes(blob) != desc.Digest {
		return bytesReaderAt{bytes.NewReader(blob)}, nil // not kept: not the bytes of its digest
	}
	b.put(desc.Digest, blob)
	return bytesReaderAt{bytes.NewReader(blob)}, nil
}

func (b *blobCache) get(d digest.Digest) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	blob, ok := b.blobs[d]
	return blob, ok
}

func (b *blobCache) put(d digest.Digest, blob []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.blobs[d]; ok {
		return
	}
	if b.size+len(blob) > maxCachedBytes {
		clear(b.blobs)
		b.size = 0
	}
	b.blobs[d] = blob
	b.size += len(blob)
}

// bytesReaderAt is a blob in memory as a content.ReaderAt.
type bytesReaderAt struct{ r *bytes.Reader }

func (r bytesReaderAt) ReadAt(p []byte, off int64) (int, error) { return r.r.ReadAt(p, off) }
func (r bytesReaderAt) Size() int64                             { return r.r.Size() }
func (r bytesReaderAt) Close() error                            { return nil }

// cachedImage is a containerd image whose metadata reads go through the client's blobCache;
// everything else (its unpack, size, usage) is the image's own.
type cachedImage struct {
	client.Image
	cs *blobCache
}

// ContentStore is the blob cache (with the image's store behind it).
func (i cachedImage) ContentStore() content.Store { return i.cs }

// Config returns the image's config descriptor for its platform.
func (i cachedImage) Config(ctx context.Context) (ocispec.Descriptor, error) {
	m := i.Metadata()
	return m.Config(ctx, i.cs, i.Platform())
}

// RootFS returns the uncompressed digests of the image's layers, for its platform.
func (i cachedImage) RootFS(ctx context.Context) ([]digest.Digest, error) {
	m := i.Metadata()
	return m.RootFS(ctx, i.cs, i.Platform())
}

// Spec returns the image's config.
func (i cachedImage) Spec(ctx context.Context) (ocispec.Image, error) {
	var img ocispec.Image
	desc, err := i.Config(ctx)
	if err != nil {
		return img, fmt.Errorf("get image config descriptor: %w", err)
	}
	blob, err := content.ReadBlob(ctx, i.cs, desc)
	if err != nil {
		return img, fmt.Errorf("read image config from content store: %w", err)
	}
	if err := json.Unmarshal(blob, &img); err != nil {
		return img, fmt.Errorf("unmarshal image config: %w", err)
	}
	return img, nil
}

// cached returns img with its metadata read through the client's blob cache.
func (c *Client) cached(img client.Image) client.Image {
	if c.blobs == nil {
		return img
	}
	return cachedImage{Image: img, cs: c.blobs}
}

// isUnpacked reports whether img's layers are unpacked for the client's snapshotter, as
// client.Image.IsUnpacked does, its layers read through the blob cache.
func (c *Client) isUnpacked(ctx context.Context, img client.Image) (bool, error) {
	name := c.snapshotter
	if name == "" {
		label, err := c.c.GetLabel(ctx, defaults.DefaultSnapshotterNSLabel)
		if err != nil {
			return false, err
		}
		name = label
		if name == "" {
			name = defaults.DefaultSnapshotter
		}
	}
	diffs, err := img.RootFS(ctx)
	if err != nil {
		return false, err
	}
	if _, err := c.c.SnapshotService(name).Stat(ctx, identity.ChainID(diffs).String()); err != nil {
		if errdefs.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
