package podsandbox

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// NetState is the pod's record of its network attachment, which its loop owns: the sandbox
// reports to it and asks it, and keeps no such state itself.
type NetState interface {
	// SetAttached records, on the pod's loop, whether an attachment may exist.
	SetAttached(bool)
	// Attached reports it, read on the pod's loop.
	Attached() bool
	// SetIP records the pod's IP on the pod's loop and publishes it.
	SetIP(netip.Addr)
	// IP is the pod's IP as last published (invalid until attached, or with host networking).
	IP() netip.Addr
}

func (s *Sandbox) record(rec sandbox.Record) error {
	rec.UID = s.uid
	rec.NetNS = s.NetNSPath()
	return poddir.WriteJSON(filepath.Join(s.dir, "sandbox.json"), rec)
}

// cniID is the container ID the pod's network attachment is known by.
func (s *Sandbox) cniID() string { return "podlife-" + s.uid }

// Attach runs CNI ADD with the pod's port mappings, recording the intent before and the result
// after, and rewrites /etc/hosts with the pod IP (in place: containers bind-mount the file).
func (s *Sandbox) Attach(ctx context.Context, nw cni.Network, spec *api.PodSpec, ports []cni.PortMapping) error {
	if spec.HostNetwork {
		return nil
	}
	if err := s.record(sandbox.Record{Network: "attaching"}); err != nil {
		return err
	}
	failpoint.Hit("run.cni-intent")
	s.net.SetAttached(true)
	res, err := nw.Setup(ctx, s.cniID(), s.NetNSPath(), cni.WithPortMappings(ports...))
	if err != nil {
		return err
	}
	failpoint.Hit("run.cni-added")
	s.net.SetIP(res.IP)
	if err := s.record(sandbox.Record{Network: "attached", IP: res.IP.String()}); err != nil {
		return err
	}
	return sandbox.WriteHosts(filepath.Join(s.dir, "etc"), spec, s.hostname, s.IP())
}

// Detach runs CNI DEL if an attachment may exist; it is idempotent and works without the netns.
func (s *Sandbox) Detach(ctx context.Context, nw cni.Network, ports []cni.PortMapping) error {
	if !s.net.Attached() {
		return nil
	}
	if err := nw.Remove(ctx, s.cniID(), s.NetNSPath(), cni.WithPortMappings(ports...)); err != nil {
		return fmt.Errorf("network detach: %w", err)
	}
	failpoint.Hit("stop.cni-deleted")
	s.net.SetAttached(false)
	return s.record(sandbox.Record{Network: ""})
}
