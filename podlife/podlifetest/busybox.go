package podlifetest

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
)

// DefaultBusybox is the static busybox that Debian's busybox-static
// installs, used unless [WithBusybox] names another.
const DefaultBusybox = "/usr/bin/busybox"

// BusyboxOption configures [BusyboxArchive] and [ImportBusybox].
type BusyboxOption func(*busyboxOptions)

type busyboxOptions struct {
	binary      string
	snapshotter string
	otherArch   string
	user        string
	entrypoint  []string
	cmd         []string      // with entrypoint: the image's default arguments
	files       []rootfsEntry // a second layer's, if any
}

// WithBusybox uses the busybox binary at path. It must be statically
// linked, since the image contains nothing else, and runnable here, since
// its applet list comes from "busybox --list".
func WithBusybox(path string) BusyboxOption {
	return func(o *busyboxOptions) { o.binary = path }
}

// WithSnapshotter makes [ImportBusybox] unpack into the named snapshotter
// instead of the client's default (overlayfs).
func WithSnapshotter(name string) BusyboxOption {
	return func(o *busyboxOptions) { o.snapshotter = name }
}

// WithOtherPlatformFirst makes [BusyboxArchive] write a multi-platform image:
// its index lists first a manifest for linux/arch, whose one layer holds only
// the file /arch (with arch in it, and no shell), then the busybox image for
// this host. An importer that unpacks the index's first manifest instead of
// the host's gets an image that cannot run. arch must not be this host's.
func WithOtherPlatformFirst(arch string) BusyboxOption {
	return func(o *busyboxOptions) { o.otherArch = arch }
}

// WithUser sets the image config's User ("1000", "nobody", "1000:50"), which containers
// run as unless their security context says otherwise. The default is none: root.
func WithUser(user string) BusyboxOption {
	return func(o *busyboxOptions) { o.user = user }
}

// WithFile adds a regular file (mode 0644) at path (relative, "marker" or "data/x") to a
// second layer on top of busybox's, so that the image has two layers; files of several
// WithFile options share that layer. Its directories must exist in the busybox layer.
func WithFile(path string, data []byte) BusyboxOption {
	return func(o *busyboxOptions) {
		o.files = append(o.files, rootfsEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: 0o644}, body: data})
	}
}

// WithExecutable adds an executable file (mode 0755) at path to the second layer, as
// [WithFile] does: a static program such as Kubernetes' agnhost test image's.
func WithExecutable(path string, data []byte) BusyboxOption {
	return func(o *busyboxOptions) {
		o.files = append(o.files, rootfsEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: 0o755}, body: data})
	}
}

// WithExecutableMode adds a file with mode (permission and setuid/setgid bits, such as
// 0o4755) at path to the second layer, as [WithFile] does.
func WithExecutableMode(path string, mode int64, data []byte) BusyboxOption {
	return func(o *busyboxOptions) {
		o.files = append(o.files, rootfsEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: mode}, body: data})
	}
}

// WithEntrypoint sets the image config's Entrypoint (absolute path first) and clears its Cmd,
// so that a container's args alone are the program's arguments.
func WithEntrypoint(entrypoint ...string) BusyboxOption {
	return func(o *busyboxOptions) { o.entrypoint = entrypoint }
}

// WithCmd sets the image config's Cmd (default ["sh"]): with [WithEntrypoint], the default
// arguments a container without args runs the entrypoint with, as Kubernetes' agnhost
// image's ["pause"].
func WithCmd(cmd ...string) BusyboxOption {
	return func(o *busyboxOptions) { o.cmd = cmd }
}

// WithSymlink adds a symbolic link at path to target to the second layer, as [WithFile]
// adds a file (agnhost's image has /agnhost-2 -> agnhost).
func WithSymlink(path, target string) BusyboxOption {
	return func(o *busyboxOptions) {
		o.files = append(o.files, rootfsEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: path, Linkname: target, Mode: 0o777}})
	}
}

func newBusyboxOptions(opts []BusyboxOption) busyboxOptions {
	o := busyboxOptions{binary: DefaultBusybox}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// BusyboxArchive writes to w an image archive that containerd's
// client.Import (and "ctr images import") turns into an image named ref,
// such as "podlife.test/busybox:1". The image has one layer (two with [WithFile]): busybox in
// /bin with a symlink per applet (sh, sleep, seq, nc, httpd, ...),
// /etc/passwd and /etc/group with root and nobody, and empty /tmp (1777),
// /root, /var, /proc, /sys and /dev. Its config sets
// PATH=/bin:/usr/bin:/sbin:/usr/sbin, Cmd ["sh"], the architecture this
// program was built for and OS linux.
//
// The archive is an OCI image layout that also carries a docker-style
// manifest.json, as "docker save" writes them. Timestamps are fixed, so the
// same busybox and ref give the same bytes and digests.
func BusyboxArchive(w io.Writer, ref string, opts ...BusyboxOption) error {
	o := newBusyboxOptions(opts)
	applets, err := busyboxApplets(o.binary)
	if err != nil {
		return err
	}
	l, err := buildLayer(busyboxRootfs(o.binary, applets))
	if err != nil {
		return fmt.Errorf("podlifetest: busybox: %w", err)
	}
	layers := []layer{l}
	if len(o.files) > 0 {
		extra, err := buildLayer(o.files)
		if err != nil {
			return fmt.Errorf("podlifetest: busybox: %w", err)
		}
		layers = append(layers, extra)
	}
	var other *otherPlatform
	if o.otherArch != "" {
		if o.otherArch == runtime.GOARCH {
			return fmt.Errorf("podlifetest: busybox: the other platform %s is this host's", o.otherArch)
		}
		ol, err := buildLayer([]rootfsEntry{{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "arch", Mode: 0o644}, body: []byte(o.otherArch + "\n")}})
		if err != nil {
			return fmt.Errorf("podlifetest: busybox: %w", err)
		}
		other = &otherPlatform{arch: o.otherArch, layer: ol}
	}
	img, err := newImage(ref, layers, other, o.user, o.entrypoint, o.cmd)
	if err != nil {
		return fmt.Errorf("podlifetest: busybox: %w", err)
	}
	if err := img.writeArchive(w); err != nil {
		return fmt.Errorf("podlifetest: busybox: %w", err)
	}
	return nil
}

// WriteBusyboxArchive writes the archive of [BusyboxArchive] to the file at
// path, replacing it.
func WriteBusyboxArchive(path, ref string, opts ...BusyboxOption) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("podlifetest: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("podlifetest: %w", cerr)
		}
	}()
	return BusyboxArchive(f, ref, opts...)
}

// busyboxApplets returns the sorted applet names "busybox --list" prints,
// leaving out busybox itself.
func busyboxApplets(binary string) ([]string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(binary, "--list")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("podlifetest: %s --list: %w: %s", binary, err, strings.TrimSpace(stderr.String()))
	}
	var applets []string
	for _, a := range strings.Fields(string(out)) {
		if a != "busybox" && !strings.Contains(a, "/") {
			applets = append(applets, a)
		}
	}
	if len(applets) == 0 {
		return nil, fmt.Errorf("podlifetest: %s --list printed no applets", binary)
	}
	slices.Sort(applets)
	return slices.Compact(applets), nil
}
