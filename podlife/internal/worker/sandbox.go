package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/hostmount"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// Sandbox is what a pod's containers share: the pinned network, IPC and UTS namespaces (and
// with ShareProcessNamespace the pause's PID namespace), the pod network attachment, the
// generated /etc/hosts, /etc/hostname and /etc/resolv.conf, and the volumes. Only a shared PID
// namespace needs a pause process (see Pod.startPause).
type Sandbox struct {
	pod      *Worker
	dir      string
	nsPaths  map[sandboxns.Kind]string
	pidNS    string // the pause's pinned PID namespace (ShareProcessNamespace)
	hostname string
	ip       netip.Addr // owned by the pod's loop, like attached
	attached bool       // a network attachment may exist (intent recorded)
}

// Dir is the pod's directory under the runtime's state dir.
func (s *Sandbox) Dir() string { return s.dir }

// NetNSPath is the pinned network namespace ("" with host networking).
func (s *Sandbox) NetNSPath() string { return s.nsPaths[sandboxns.Net] }

// Hostname is the pod's hostname.
func (s *Sandbox) Hostname() string { return s.hostname }

// IP is the pod's IP on its network (invalid until the network is attached, or with host networking).
func (s *Sandbox) IP() netip.Addr {
	if v := s.pod.view(); v != nil {
		return v.status.PodIP
	}
	return netip.Addr{}
}

func (s *Sandbox) etc(name string) string { return filepath.Join(s.dir, "etc", name) }

// fifoDir keeps the pod's stdio FIFOs in the pod dir rather than containerd's global
// /run/containerd/fifo, so that nothing of the pod is left elsewhere if the managing process dies.
func (s *Sandbox) fifoDir() string { return filepath.Join(s.dir, "fifo") }

// create pins namespaces, writes the /etc files and prepares volumes. It does not touch the
// network (attach does).
func (s *Sandbox) create() error {
	spec := &s.pod.spec
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
		if paths, err = s.pod.rt.Tasks.PinNamespaces(filepath.Join(s.dir, "ns"), kinds, s.hostname); err != nil {
			return fmt.Errorf("pin namespaces: %w", err)
		}
	}
	s.nsPaths = paths // before anything that reads it starts
	failpoint.Hit("run.netns-pinned")
	if err := s.writeEtc(); err != nil {
		return err
	}
	return s.createVolumes()
}

// writeEtc writes the pod's /etc files (see sandbox.WriteEtc).
func (s *Sandbox) writeEtc() error {
	return sandbox.WriteEtc(filepath.Join(s.dir, "etc"), &s.pod.spec, s.hostname, s.IP())
}

func (s *Sandbox) volumeDir(name string) string { return filepath.Join(s.dir, "volumes", name) }

// createVolumes makes emptyDir directories (a tmpfs for medium Memory) and checks hostPaths.
func (s *Sandbox) createVolumes() error {
	for _, v := range s.pod.spec.Volumes {
		switch {
		case v.EmptyDir != nil:
			dir := s.volumeDir(v.Name)
			if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				return err
			}
			if v.EmptyDir.Medium == MediumMemory {
				data := "mode=1777" // tmpfs's default root mode, which the kubelet keeps (sticky)
				if v.EmptyDir.SizeLimit > 0 {
					data += fmt.Sprintf(",size=%d", v.EmptyDir.SizeLimit)
				}
				if err := hostmount.MountTmpfs(dir, data); err != nil {
					return fmt.Errorf("volume %q: mount tmpfs: %w", v.Name, err)
				}
			}
			if err := applyFSGroup(&s.pod.spec, dir, false); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
		case v.HostPath != nil:
			if err := sandbox.CheckHostPath(v.HostPath); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
		case v.Files != nil:
			if err := sandbox.WriteFiles(s.volumeDir(v.Name), v.Files); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
			if err := applyFSGroup(&s.pod.spec, s.volumeDir(v.Name), true); err != nil {
				return fmt.Errorf("volume %q: %w", v.Name, err)
			}
		}
	}
	return nil
}

// removeVolumes unmounts memory-backed emptyDirs, image volumes, and any private volume mount point left by a
// create (see privateMounts); the directories go with the pod dir.
func (s *Sandbox) removeVolumes() error {
	var errs []error
	if err := hostmount.UnmountUnder(s.pod.rt.RealDir(filepath.Join(s.dir, "subpaths"))); err != nil {
		errs = append(errs, fmt.Errorf("private volume mounts: %w", err))
	}
	for _, v := range s.pod.spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium == MediumMemory || v.Files != nil && v.Files.Medium == MediumMemory || v.Image != nil {
			if err := hostmount.UnmountLazy(s.volumeDir(v.Name)); err != nil {
				errs = append(errs, fmt.Errorf("volume %q: unmount: %w", v.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Sandbox) record(rec sandbox.Record) error {
	rec.UID = s.pod.uid
	rec.NetNS = s.NetNSPath()
	return poddir.WriteJSON(filepath.Join(s.dir, "sandbox.json"), rec)
}

// cniID is the container ID the pod's network attachment is known by.
func (s *Sandbox) cniID() string { return "podlife-" + s.pod.uid }

// attach runs CNI ADD, recording the intent before and the result after, and rewrites /etc/hosts
// with the pod IP (in place: containers bind-mount the file).
func (s *Sandbox) attach(ctx context.Context, nw cni.Network) error {
	if s.pod.spec.HostNetwork {
		return nil
	}
	if err := s.record(sandbox.Record{Network: "attaching"}); err != nil {
		return err
	}
	failpoint.Hit("run.cni-intent")
	s.pod.do(func() { s.attached = true })
	res, err := nw.Setup(ctx, s.cniID(), s.NetNSPath(), cni.WithPortMappings(PortMappings(&s.pod.spec)...))
	if err != nil {
		return err
	}
	failpoint.Hit("run.cni-added")
	s.pod.update(func() { s.ip = res.IP })
	if err := s.record(sandbox.Record{Network: "attached", IP: res.IP.String()}); err != nil {
		return err
	}
	return sandbox.WriteHosts(filepath.Join(s.dir, "etc"), &s.pod.spec, s.hostname, s.IP())
}

// detach runs CNI DEL if an attachment may exist; it is idempotent and works without the netns.
func (s *Sandbox) detach(ctx context.Context, nw cni.Network) error {
	var attached bool
	s.pod.do(func() { attached = s.attached })
	if !attached {
		return nil
	}
	if err := nw.Remove(ctx, s.cniID(), s.NetNSPath(), cni.WithPortMappings(PortMappings(&s.pod.spec)...)); err != nil {
		return fmt.Errorf("network detach: %w", err)
	}
	failpoint.Hit("stop.cni-deleted")
	s.pod.do(func() { s.attached = false })
	return s.record(sandbox.Record{Network: ""})
}

// release unpins the namespaces.
func (s *Sandbox) release() error {
	return s.pod.rt.Tasks.UnpinNamespaces(filepath.Join(s.dir, "ns"))
}
