package podlifetest_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/podlife/podlifetest"
)

// readTar returns the headers and regular file contents of a tar stream.
func readTar(t *testing.T, r io.Reader) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	hdrs, files := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return hdrs, files
		}
		if err != nil {
			t.Fatal(err)
		}
		hdrs[hdr.Name] = hdr
		if hdr.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[hdr.Name] = b
		}
	}
}

func decodeJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}

func TestBusyboxArchive(t *testing.T) {
	requireBinary(t, podlifetest.DefaultBusybox)
	var a, b bytes.Buffer
	begin := time.Now()
	if err := podlifetest.BusyboxArchive(&a, testRef); err != nil {
		t.Fatal(err)
	}
	t.Logf("built a %d byte archive in %v", a.Len(), time.Since(begin))
	if err := podlifetest.BusyboxArchive(&b, testRef); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two archives of the same image differ")
	}

	_, files := readTar(t, &a)
	var layout ocispec.ImageLayout
	decodeJSON(t, files["oci-layout"], &layout)
	if layout.Version != ocispec.ImageLayoutVersion {
		t.Errorf("oci-layout version %q", layout.Version)
	}
	var index ocispec.Index
	decodeJSON(t, files["index.json"], &index)
	if len(index.Manifests) != 1 {
		t.Fatalf("index has %d manifests", len(index.Manifests))
	}
	m := index.Manifests[0]
	if got := m.Annotations["io.containerd.image.name"]; got != testRef {
		t.Errorf("image name annotation %q", got)
	}
	if got := m.Annotations[ocispec.AnnotationRefName]; got != "1" {
		t.Errorf("ref name annotation %q", got)
	}
	var docker []struct {
		Config           string
		RepoTags, Layers []string
	}
	decodeJSON(t, files["manifest.json"], &docker)
	if len(docker) != 1 || len(docker[0].RepoTags) != 1 || docker[0].RepoTags[0] != testRef {
		t.Errorf("manifest.json = %+v", docker)
	}

	blob := func(d ocispec.Descriptor) []byte {
		data, ok := files["blobs/sha256/"+d.Digest.Encoded()]
		if !ok || int64(len(data)) != d.Size {
			t.Fatalf("blob %s missing or of the wrong size", d.Digest)
		}
		return data
	}
	var manifest ocispec.Manifest
	decodeJSON(t, blob(m), &manifest)
	var config ocispec.Image
	decodeJSON(t, blob(manifest.Config), &config)
	if config.OS != "linux" || len(config.Config.Env) != 1 || len(config.Config.Cmd) != 1 || config.Config.Cmd[0] != "sh" {
		t.Errorf("config = %+v", config)
	}
	if len(manifest.Layers) != 1 || len(config.RootFS.DiffIDs) != 1 {
		t.Fatalf("manifest %+v, config %+v", manifest, config)
	}

	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[0])))
	if err != nil {
		t.Fatal(err)
	}
	hdrs, _ := readTar(t, zr)
	for name, want := range map[string]os.FileMode{
		"bin/busybox": 0o755, "tmp/": os.ModeSticky | os.ModeDir | 0o777, "etc/passwd": 0o644, "root/": 0o700 | os.ModeDir,
	} {
		hdr, ok := hdrs[name]
		if !ok {
			t.Errorf("layer lacks %s", name)
			continue
		}
		if got := hdr.FileInfo().Mode(); got != want {
			t.Errorf("%s mode %v, want %v", name, got, want)
		}
	}
	for _, applet := range []string{"sh", "sleep", "seq", "nc", "httpd", "wget", "ps"} {
		if hdr := hdrs["bin/"+applet]; hdr == nil || hdr.Typeflag != tar.TypeSymlink || hdr.Linkname != "busybox" {
			t.Errorf("bin/%s is not a symlink to busybox: %+v", applet, hdr)
		}
	}
}

func TestBusyboxArchiveBadRef(t *testing.T) {
	requireBinary(t, podlifetest.DefaultBusybox)
	for _, ref := range []string{"busybox", "podlife.test/busybox", "podlife.test/busybox@sha256:abcd"} {
		if err := podlifetest.BusyboxArchive(io.Discard, ref); err == nil {
			t.Errorf("BusyboxArchive(%q) succeeded", ref)
		}
	}
}

func TestBusyboxArchiveMissingBinary(t *testing.T) {
	err := podlifetest.BusyboxArchive(io.Discard, testRef, podlifetest.WithBusybox("/nonexistent/busybox"))
	if err == nil {
		t.Fatal("BusyboxArchive with a missing busybox succeeded")
	}
}

func TestWriteBusyboxArchive(t *testing.T) {
	requireBinary(t, podlifetest.DefaultBusybox)
	path := filepath.Join(t.TempDir(), "busybox.tar")
	if err := podlifetest.WriteBusyboxArchive(path, testRef); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := podlifetest.BusyboxArchive(&want, testRef); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("file differs from BusyboxArchive's output")
	}
}

func TestBusyboxArchiveEntrypointExecutable(t *testing.T) {
	requireBinary(t, podlifetest.DefaultBusybox)
	var a bytes.Buffer
	if err := podlifetest.BusyboxArchive(&a, testRef, podlifetest.WithExecutable("agnhost", []byte("#!/bin/sh\n")),
		podlifetest.WithEntrypoint("/agnhost", "pause")); err != nil {
		t.Fatal(err)
	}
	_, files := readTar(t, &a)
	blob := func(d ocispec.Descriptor) []byte { return files["blobs/sha256/"+d.Digest.Encoded()] }
	var index ocispec.Index
	decodeJSON(t, files["index.json"], &index)
	var manifest ocispec.Manifest
	decodeJSON(t, blob(index.Manifests[0]), &manifest)
	var config ocispec.Image
	decodeJSON(t, blob(manifest.Config), &config)
	if got := config.Config.Entrypoint; len(got) != 2 || got[0] != "/agnhost" || got[1] != "pause" || config.Config.Cmd != nil {
		t.Errorf("entrypoint %q, cmd %q: want [/agnhost pause] and no cmd", got, config.Config.Cmd)
	}
	if len(manifest.Layers) != 2 {
		t.Fatalf("%d layers, want 2", len(manifest.Layers))
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[1])))
	if err != nil {
		t.Fatal(err)
	}
	hdrs, _ := readTar(t, zr)
	if hdr := hdrs["agnhost"]; hdr == nil || hdr.FileInfo().Mode() != 0o755 {
		t.Errorf("agnhost in the second layer: %+v, want mode 0755", hdr)
	}
}

func TestBusyboxArchiveCmdSymlink(t *testing.T) {
	requireBinary(t, podlifetest.DefaultBusybox)
	var a bytes.Buffer
	if err := podlifetest.BusyboxArchive(&a, testRef, podlifetest.WithExecutable("agnhost", []byte("#!/bin/sh\n")),
		podlifetest.WithSymlink("agnhost-2", "agnhost"), podlifetest.WithEntrypoint("/agnhost"), podlifetest.WithCmd("pause"),
		podlifetest.WithExecutableMode("bin/nnp", 0o6755, []byte("#!/bin/sh\n"))); err != nil {
		t.Fatal(err)
	}
	_, files := readTar(t, &a)
	blob := func(d ocispec.Descriptor) []byte { return files["blobs/sha256/"+d.Digest.Encoded()] }
	var index ocispec.Index
	decodeJSON(t, files["index.json"], &index)
	var manifest ocispec.Manifest
	decodeJSON(t, blob(index.Manifests[0]), &manifest)
	var config ocispec.Image
	decodeJSON(t, blob(manifest.Config), &config)
	if e, c := config.Config.Entrypoint, config.Config.Cmd; len(e) != 1 || e[0] != "/agnhost" || len(c) != 1 || c[0] != "pause" {
		t.Errorf("entrypoint %q, cmd %q: want [/agnhost] [pause]", e, c)
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[1])))
	if err != nil {
		t.Fatal(err)
	}
	hdrs, _ := readTar(t, zr)
	if hdr := hdrs["agnhost-2"]; hdr == nil || hdr.Typeflag != tar.TypeSymlink || hdr.Linkname != "agnhost" {
		t.Errorf("agnhost-2 in the second layer: %+v, want a symlink to agnhost", hdr)
	}
	if hdr := hdrs["bin/nnp"]; hdr == nil || hdr.Mode != 0o6755 {
		t.Errorf("bin/nnp in the second layer: %+v, want mode 06755", hdr)
	}
}
