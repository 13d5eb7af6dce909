package podlifetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"time"

	digest "github.com/opencontainers/go-digest"
)

// epoch is the modification time of every file the package writes into an
// archive, so that the same input yields the same digests.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// layer is a gzip-compressed layer and the digest of its uncompressed tar.
type layer struct {
	blob   []byte
	diffID digest.Digest
}

// rootfsEntry is one file of the busybox root filesystem.
type rootfsEntry struct {
	hdr  tar.Header
	body []byte // for regular files not read from disk
	src  string // for regular files copied from the host
}

// busyboxRootfs lists the files of the image: busybox and a symlink per
// applet in /bin, minimal /etc files and the usual empty directories.
func busyboxRootfs(busybox string, applets []string) []rootfsEntry {
	dir := func(name string, mode int64) rootfsEntry {
		return rootfsEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode}}
	}
	file := func(name string, body string) rootfsEntry {
		return rootfsEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644}, body: []byte(body)}
	}
	entries := []rootfsEntry{
		dir("bin", 0o755),
		{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755}, src: busybox},
	}
	for _, a := range applets {
		entries = append(entries, rootfsEntry{hdr: tar.Header{
			Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777,
		}})
	}
	return append(entries,
		dir("dev", 0o755),
		dir("etc", 0o755),
		file("etc/group", "root:x:0:\nnobody:x:65534:\n"),
		file("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"),
		dir("proc", 0o555),
		dir("root", 0o700),
		dir("sys", 0o555),
		dir("tmp", 0o1777),
		dir("usr", 0o755),
		dir("usr/bin", 0o755),
		dir("usr/share", 0o755),
		dir("var", 0o755),
	)
}

// buildLayer writes entries as a tar and compresses it with gzip at the
// fastest level (a test image favours build time over size). The tar, and
// so the diff ID, only depends on the entries; the compressed bytes also
// depend on Go's compress/flate, which may change between Go releases.
func buildLayer(entries []rootfsEntry) (layer, error) {
	var blob bytes.Buffer
	zw, err := gzip.NewWriterLevel(&blob, gzip.BestSpeed)
	if err != nil {
		return layer{}, err
	}
	diff := sha256.New()
	tw := tar.NewWriter(io.MultiWriter(zw, diff))
	for _, e := range entries {
		if err := writeEntry(tw, e); err != nil {
			return layer{}, fmt.Errorf("layer: %s: %w", e.hdr.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return layer{}, fmt.Errorf("layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return layer{}, fmt.Errorf("layer: %w", err)
	}
	return layer{blob: blob.Bytes(), diffID: digest.NewDigest(digest.SHA256, diff)}, nil
}

func writeEntry(tw *tar.Writer, e rootfsEntry) error {
	hdr := e.hdr
	hdr.ModTime = epoch
	hdr.Format = tar.FormatUSTAR
	body := e.body
	if e.src != "" {
		b, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		body = b
	}
	if hdr.Typeflag == tar.TypeReg {
		hdr.Size = int64(len(body))
	}
	if err := tw.WriteHeader(&hdr); err != nil {
		return err
	}
	_, err := tw.Write(body)
	return err
}
