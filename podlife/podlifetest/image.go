package podlifetest

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/pkg/reference"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// imagePath is the PATH the busybox image's config sets.
const imagePath = "PATH=/bin:/usr/bin:/sbin:/usr/sbin"

// blob is content stored under blobs/sha256 in the archive.
type blob struct {
	desc ocispec.Descriptor
	data []byte
}

func newBlob(mediaType string, data []byte) blob {
	return blob{
		desc: ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))},
		data: data,
	}
}

func jsonBlob(mediaType string, v any) (blob, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return blob{}, err
	}
	return newBlob(mediaType, data), nil
}

// image is an image (or, with another platform, an index of two images, the
// other's of a single layer) ready to be written as an archive.
type image struct {
	ref                   string
	blobs                 []blob // layers, configs, manifests and a nested index
	index, dockerManifest []byte
}

// otherPlatform is the foreign image of a multi-platform archive, listed
// before the host's.
type otherPlatform struct {
	arch  string
	layer layer
}

// platformImage builds the config and manifest of an image of layers (bottom first) for
// platform, whose config names user (empty: root) and entrypoint (none: Cmd ["sh"]). It returns the manifest's descriptor, with
// the platform, and the blobs to store (layers, config, manifest).
func platformImage(platform ocispec.Platform, layers []layer, user string, entrypoint, cmd []string) (ocispec.Descriptor, []blob, error) {
	created := epoch
	var blobs []blob
	var descs []ocispec.Descriptor
	var diffIDs []digest.Digest
	for _, l := range layers {
		b := newBlob(ocispec.MediaTypeImageLayerGzip, l.blob)
		blobs, descs, diffIDs = append(blobs, b), append(descs, b.desc), append(diffIDs, l.diffID)
	}
	conf := ocispec.ImageConfig{Env: []string{imagePath}, Cmd: []string{"sh"}, User: user}
	if len(entrypoint) > 0 {
		conf.Entrypoint, conf.Cmd = entrypoint, nil
	}
	if len(cmd) > 0 {
		conf.Cmd = cmd
	}
	config, err := jsonBlob(ocispec.MediaTypeImageConfig, ocispec.Image{
		Created:  &created,
		Platform: platform,
		Config:   conf,
		RootFS:   ocispec.RootFS{Type: "layers", DiffIDs: diffIDs},
		History:  []ocispec.History{{Created: &created, CreatedBy: "podlifetest.BusyboxArchive"}},
	})
	if err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	manifest, err := jsonBlob(ocispec.MediaTypeImageManifest, ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    config.desc,
		Layers:    descs,
	})
	if err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	desc := manifest.desc
	desc.Platform = &platform
	return desc, append(blobs, config, manifest), nil
}

// newImage builds the config, manifest and index of an image named ref
// with layers (bottom first). With other, the image is an index listing first a
// manifest for other's architecture, then the one for this host. The host's
// image runs as user (empty: root), with entrypoint and cmd (neither: Cmd ["sh"]).
func newImage(ref string, layers []layer, other *otherPlatform, user string, entrypoint, cmd []string) (*image, error) {
	spec, err := reference.Parse(ref)
	if err != nil || spec.Object == "" || strings.HasPrefix(spec.Object, "@") {
		return nil, fmt.Errorf("ref %q must be a full reference with a tag, like podlife.test/busybox:1", ref)
	}
	img := &image{ref: ref}
	entry, blobs, err := platformImage(ocispec.Platform{Architecture: runtime.GOARCH, OS: "linux"}, layers, user, entrypoint, cmd)
	if err != nil {
		return nil, err
	}
	img.blobs = blobs
	hostConfig := blobs[len(layers)]
	hostLayers := make([]string, len(layers))
	for i := range layers {
		hostLayers[i] = blobPath(blobs[i].desc)
	}
	if other != nil {
		foreign, blobs, err := platformImage(ocispec.Platform{Architecture: other.arch, OS: "linux"}, []layer{other.layer}, "", nil, nil)
		if err != nil {
			return nil, err
		}
		img.blobs = append(img.blobs, blobs...)
		nested, err := jsonBlob(ocispec.MediaTypeImageIndex, ocispec.Index{
			Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: ocispec.MediaTypeImageIndex,
			Manifests: []ocispec.Descriptor{foreign, entry},
		})
		if err != nil {
			return nil, err
		}
		img.blobs = append(img.blobs, nested)
		entry = nested.desc
	}
	entry.Annotations = map[string]string{
		images.AnnotationImageName: ref,         // the name containerd gives the image
		ocispec.AnnotationRefName:  spec.Object, // the tag, as the OCI layout spec suggests
	}
	img.index, err = json.Marshal(ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{entry},
	})
	if err != nil {
		return nil, err
	}
	img.dockerManifest, err = json.Marshal([]dockerManifest{{
		Config:   blobPath(hostConfig.desc),
		RepoTags: []string{ref},
		Layers:   hostLayers,
	}})
	if err != nil {
		return nil, err
	}
	return img, nil
}

// dockerManifest is an entry of the manifest.json "docker save" writes.
type dockerManifest struct {
	Config   string
	RepoTags []string
	Layers   []string
}

func blobPath(d ocispec.Descriptor) string {
	return "blobs/" + d.Digest.Algorithm().String() + "/" + d.Digest.Encoded()
}

// writeArchive writes img as an OCI image layout in a tar, with
// manifest.json for tools that only read docker archives.
func (img *image) writeArchive(w io.Writer) error {
	layout, err := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	dirs := []string{"blobs/", "blobs/sha256/"}
	for _, d := range dirs {
		if err := tw.WriteHeader(archiveHeader(tar.TypeDir, d, 0)); err != nil {
			return err
		}
	}
	type file struct {
		name string
		data []byte
	}
	files := []file{{ocispec.ImageLayoutFile, layout}}
	for _, b := range img.blobs {
		files = append(files, file{blobPath(b.desc), b.data})
	}
	files = append(files, file{ocispec.ImageIndexFile, img.index}, file{"manifest.json", img.dockerManifest})
	for _, f := range files {
		if err := tw.WriteHeader(archiveHeader(tar.TypeReg, f.name, len(f.data))); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	return tw.Close()
}

func archiveHeader(typ byte, name string, size int) *tar.Header {
	mode := int64(0o644)
	if typ == tar.TypeDir {
		mode = 0o755
	}
	return &tar.Header{
		Typeflag: typ, Name: name, Size: int64(size), Mode: mode,
		ModTime: epoch, Format: tar.FormatUSTAR,
	}
}
