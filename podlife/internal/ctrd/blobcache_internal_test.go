package ctrd

import (
	"bytes"
	"context"
	"testing"

	"github.com/containerd/containerd/v2/core/content"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// countingStore is a content store of blobs in memory that counts its reads.
type countingStore struct {
	content.Store
	blobs map[digest.Digest][]byte
	reads int
}

func (s *countingStore) ReaderAt(_ context.Context, desc ocispec.Descriptor) (content.ReaderAt, error) {
	s.reads++
	return bytesReaderAt{bytes.NewReader(s.blobs[desc.Digest])}, nil
}

func TestBlobCacheReadsASmallBlobOnce(t *testing.T) {
	ctx := context.Background()
	config := []byte(`{"architecture":"amd64","os":"linux"}`)
	layer := bytes.Repeat([]byte("x"), maxCachedBlob+1)
	wrong := []byte("not the bytes of its digest")
	cd, ld := digest.FromBytes(config), digest.FromBytes(layer)
	wd := digest.FromString("something else")
	store := &countingStore{blobs: map[digest.Digest][]byte{cd: config, ld: layer, wd: wrong}}
	b := newBlobCache(store)
	read := func(d digest.Digest, size int) []byte {
		t.Helper()
		got, err := content.ReadBlob(ctx, b, ocispec.Descriptor{Digest: d, Size: int64(size)})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for range 3 {
		if got := read(cd, len(config)); !bytes.Equal(got, config) {
			t.Fatalf("config read as %q", got)
		}
	}
	if store.reads != 1 {
		t.Errorf("the config was read from the store %d times, want once", store.reads)
	}
	store.reads = 0
	for range 2 {
		if got := read(ld, len(layer)); len(got) != len(layer) {
			t.Fatalf("layer read as %d bytes", len(got))
		}
		if got := read(wd, len(wrong)); !bytes.Equal(got, wrong) {
			t.Fatalf("blob read as %q", got)
		}
	}
	if store.reads != 4 {
		t.Errorf("a large blob and one that does not match its digest were read %d times in 2 rounds, want 4 (never kept)", store.reads)
	}
}

func TestBlobCacheStartsOverWhenFull(t *testing.T) {
	b := newBlobCache(nil)
	blob := bytes.Repeat([]byte("y"), maxCachedBlob)
	for i := range maxCachedBytes/maxCachedBlob + 1 {
		b.put(digest.FromString(string(rune('a'+i))), blob)
	}
	if b.size > maxCachedBytes {
		t.Fatalf("cache holds %d bytes, more than %d", b.size, maxCachedBytes)
	}
	if len(b.blobs) != 1 {
		t.Errorf("after the cache filled up it holds %d blobs, want 1 (it started over)", len(b.blobs))
	}
}
