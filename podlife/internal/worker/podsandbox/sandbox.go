package podsandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/containerd/containerd/v2/pkg/oci"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/hostmount"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Sandbox is what a pod's containers share: the pinned network, IPC and UTS namespaces (and
// with ShareProcessNamespace the pause's PID namespace), the pod network attachment, the
// generated /etc/hosts, /etc/hostname and /etc/resolv.conf, and the volumes. Only a shared PID
// namespace needs a pause process (see StartPause).
//
// Its paths and hostname are set when the sandbox is made (Create, Restore, Rebase), before
// anything that reads them runs; the state of the network attachment is the pod's loop's
// (NetState).
type Sandbox struct {
	dir       string
	uid       string
	namespace string // containerd's namespace (the pod cgroup's parent)
	tasks     Tasks
	net       NetState
	nsPaths   map[sandboxns.Kind]string
	pidNS     string // the pause's pinned PID namespace (ShareProcessNamespace)
	hostname  string
}

// Tasks is what the sandbox asks of containerd and the host (tasks.Runtime has it).
type Tasks interface {
	PinNamespaces(dir string, kinds []sandboxns.Kind, hostname string) (map[sandboxns.Kind]string, error)
	UnpinNamespaces(dir string) error
	PinProcessNamespace(dir string, k sandboxns.Kind, pid int) (string, error)
	NewPause(ctx context.Context, id string, rt tasks.Class, labels map[string]string, opts []oci.SpecOpts) (tasks.Container, error)
	CreateLease(ctx context.Context, id string, labels map[string]string) error
	DeleteLease(ctx context.Context, id string) error
}

// New is the sandbox of pod uid in dir, nothing made yet. namespace is containerd's.
func New(dir, uid, namespace, hostname string, t Tasks, net NetState) *Sandbox {
	return &Sandbox{dir: dir, uid: uid, namespace: namespace, hostname: hostname, tasks: t, net: net}
}

// Dir is the pod's directory under the runtime's state dir.
func (s *Sandbox) Dir() string { return s.dir }

// NetNSPath is the pinned network namespace ("" with host networking).
func (s *Sandbox) NetNSPath() string { return s.nsPaths[sandboxns.Net] }

// NSPath is the pinned namespace of kind k ("" if the pod uses the host's).
func (s *Sandbox) NSPath(k sandboxns.Kind) string { return s.nsPaths[k] }

// Hostname is the pod's hostname.
func (s *Sandbox) Hostname() string { return s.hostname }

// IP is the pod's IP on its network (invalid until the network is attached, or with host networking).
func (s *Sandbox) IP() netip.Addr { return s.net.IP() }

// Etc is the pod's file of that name that containers bind-mount on /etc.
func (s *Sandbox) Etc(name string) string { return filepath.Join(s.dir, "etc", name) }

// FIFODir keeps the pod's stdio FIFOs in the pod dir rather than containerd's global
// /run/containerd/fifo, so that nothing of the pod is left elsewhere if the managing process dies.
func (s *Sandbox) FIFODir() string { return filepath.Join(s.dir, "fifo") }

// VolumeDir is the directory of the pod's volume of that name (not of a hostPath).
func (s *Sandbox) VolumeDir(name string) string { return filepath.Join(s.dir, "volumes", name) }

func (s *Sandbox) nsDir() string { return filepath.Join(s.dir, "ns") }

// Create pins namespaces, writes the /etc files and prepares volumes. It does not touch the
// network (Attach does). fsGroup applies the pod's fsGroup to a volume's directory (files: a
// files volume).
func (s *Sandbox) Create(spec *api.PodSpec, fsGroup func(dir string, files bool) error) error {
	for _, d := range []string{"etc", "volumes", "logs"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o700); err != nil {
			return err
		}
	}
	var kinds []sandboxns.Kind
	if !spec.HostIPC {
		kinds = append(kinds, sandboxns.IPC)
	}
	if spec.HostNetwork {
		s.hostname, _ = os.Hostname()
	} else {
		kinds = append(kinds, sandboxns.UTS, sandboxns.Net)
	}
	paths := map[sandboxns.Kind]string{}
	if len(kinds) > 0 {
		var err error
		if paths, err = s.tasks.PinNamespaces(s.nsDir(), kinds, s.hostname); err != nil {
			return fmt.Errorf("pin namespaces: %w", err)
		}
	}
	s.nsPaths = paths // before anything that reads it starts
	failpoint.Hit("run.netns-pinned")
	if err := s.WriteEtc(spec); err != nil {
		return err
	}
	return s.createVolumes(spec, fsGroup)
}

// WriteEtc writes the pod's /etc files (see sandbox.WriteEtc).
func (s *Sandbox) WriteEtc(spec *api.PodSpec) error {
	return sandbox.WriteEtc(filepath.Join(s.dir, "etc"), spec, s.hostname, s.IP())
}

// createVolumes makes emptyDir directories (a tmpfs for medium Memory) and checks hostPaths.
func (s *Sandbox) createVolumes(spec *api.PodSpec, fsGroup func(dir string, files bool) error) error {
	for _, v := range spec.Volumes {
		switch {
		case v.EmptyDir != nil:
			dir := s.VolumeDir(v.Name)
			if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				return err
			}
			if v.EmptyDir.Medium == api.MediumMemory {
				data := "mode=1777" // tmpfs's default root mode, which the kubelet keeps (sticky)
				if v.EmptyDir.SizeLimit > 0 {
					data += fmt.Sprintf(",size=%d", v.EmptyDir.SizeLimit)
				}
				if err := hostmount.MountTmpfs(dir, data); err != nil {
					return fmt.Errorf("volume %q: mount tmpfs: %w", v.Name, err)
				}
			}
			if err := fsGroup(dir, false); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
		case v.HostPath != nil:
			if err := sandbox.CheckHostPath(v.HostPath); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
		case v.Files != nil:
			if err := sandbox.WriteFiles(s.VolumeDir(v.Name), v.Files); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
			if err := fsGroup(s.VolumeDir(v.Name), true); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
		}
	}
	return nil
}

// RemoveVolumes unmounts memory-backed emptyDirs, image volumes, and any private volume mount
// point left by a create (under the pod dir's subpaths); the directories go with the pod dir.
// realDir is a path under the state dir as /proc/self/mountinfo shows it.
func (s *Sandbox) RemoveVolumes(spec *api.PodSpec, realDir func(string) string) error {
	var errs []error
	if err := hostmount.UnmountUnder(realDir(filepath.Join(s.dir, "subpaths"))); err != nil {
		errs = append(errs, fmt.Errorf("private volume mounts: %w", err))
	}
	for _, v := range spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium == api.MediumMemory || v.Files != nil && v.Files.Medium == api.MediumMemory || v.Image != nil {
			if err := hostmount.UnmountLazy(s.VolumeDir(v.Name)); err != nil {
				errs = append(errs, fmt.Errorf("volume %q: unmount: %w", v.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Release unpins the namespaces.
func (s *Sandbox) Release() error { return s.tasks.UnpinNamespaces(s.nsDir()) }

// Restore sets the namespaces a previous manager pinned for the pod, as its adopter found
// them (worker/observe): nsPaths the network, IPC and UTS ones that exist, pidNS the pause's
// PID namespace ("" if none; kept only for a pod with a pause).
func (s *Sandbox) Restore(spec *api.PodSpec, nsPaths map[sandboxns.Kind]string, pidNS string, pause bool) {
	s.nsPaths = map[sandboxns.Kind]string{}
	for k, path := range nsPaths {
		s.nsPaths[k] = path
	}
	if spec.HostNetwork {
		s.hostname, _ = os.Hostname()
	}
	if pause && pidNS != "" {
		s.pidNS = pidNS
	}
}

// Rebase moves the sandbox's paths from its directory to newDir (where it was renamed) and
// gives it hostname: a warm pool member taken for a pod (see warmmember.Member.Claim).
// rebase maps a path under the old directory to the new one.
func (s *Sandbox) Rebase(newDir, hostname string, rebase func(string) string) {
	s.dir, s.hostname = newDir, hostname
	for k, v := range s.nsPaths {
		s.nsPaths[k] = rebase(v)
	}
	s.pidNS = rebase(s.pidNS)
}

// NSPaths returns the paths of the pod's pinned namespaces by kind (a copy).
func (s *Sandbox) NSPaths() map[sandboxns.Kind]string { return maps.Clone(s.nsPaths) }
