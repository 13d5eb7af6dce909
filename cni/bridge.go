package cni

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/containernetworking/cni/libcni"
)

// Bridge is a Network whose pods are attached by the bridge, host-local and
// portmap plugins; see BridgeConfig. It is safe for concurrent use.
type Bridge struct {
	cfg      BridgeConfig
	conflist []byte
	a        *attacher
	claim    *bridgeClaim
	masq     *masquerade
}

var _ Network = (*Bridge)(nil)

// NewBridge validates cfg (errors name the offending field), applies its
// defaults, checks that the plugin binaries exist, and writes the conflist
// to StateDir/net.d/<Name>.conflist. The configuration is parsed once here;
// Setup and Remove reuse it and never read the file.
func NewBridge(cfg BridgeConfig) (*Bridge, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	conflist, err := bridgeConfList(cfg)
	if err != nil {
		return nil, fmt.Errorf("cni: network %q: %w", cfg.Name, err)
	}
	list, err := libcni.ConfListFromBytes(conflist)
	if err != nil {
		return nil, fmt.Errorf("cni: network %q: parse generated conflist: %w", cfg.Name, err)
	}
	if err := writeFileAtomic(confListPath(cfg), conflist, 0o644); err != nil {
		return nil, fmt.Errorf("cni: network %q: %w", cfg.Name, err)
	}
	a := newAttacher(cfg.StateDir, list, cfg.PluginDirs)
	claim := newBridgeClaim(cfg)
	masq := &masquerade{network: cfg.Name, subnet: cfg.Subnet}
	a.beforeAdd = claim.take
	if !cfg.NoIPMasq {
		a.beforeAdd = func(ctx context.Context) (func(), error) {
			done, err := claim.take(ctx)
			if err != nil {
				return nil, err
			}
			if err := masq.ensure(ctx); err != nil {
				done()
				return nil, err
			}
			return done, nil
		}
	}
	a.beforePortMapping = func(ctx context.Context) error {
		if err := guardLocalnet(ctx, cfg.Name, cfg.Bridge); err != nil {
			return fmt.Errorf("guard the host's 127.0.0.0/8 against pods: %w", err)
		}
		return nil
	}
	return &Bridge{cfg: cfg, conflist: conflist, a: a, claim: claim, masq: masq}, nil
}

// confListPath is where NewBridge writes the conflist of c.
func confListPath(c BridgeConfig) string {
	return filepath.Join(c.StateDir, "net.d", c.Name+".conflist")
}

// Setup implements Network: it gives the pod a veth on the bridge, an
// address from the subnet, and the requested host port mappings. It fails
// with a *BridgeInUseError, changing nothing, if another network (of
// another state dir, as a rule) has pods on the bridge; otherwise it
// records this network as the bridge's owner (see BridgeClaimDir). Before the
// first port mapping it drops, in the filter table's INPUT chain, the
// packets pods send through the bridge to the host's 127.0.0.0/8 (see
// Destroy), which portmap's route_localnet would otherwise let reach the
// host's loopback services.
func (b *Bridge) Setup(ctx context.Context, id, netnsPath string, opts ...AttachOption) (*Result, error) {
	return b.a.Setup(ctx, id, netnsPath, opts...)
}

// Remove implements Network.
func (b *Bridge) Remove(ctx context.Context, id, netnsPath string, opts ...AttachOption) error {
	return b.a.Remove(ctx, id, netnsPath, opts...)
}

// Config returns the effective configuration, with defaults applied.
func (b *Bridge) Config() BridgeConfig {
	c := b.cfg
	c.PluginDirs = slices.Clone(c.PluginDirs)
	return c
}

// ConfList returns the conflist NewBridge generated.
func (b *Bridge) ConfList() []byte {
	return slices.Clone(b.conflist)
}

// removeConfList deletes the conflist file, if present.
func (b *Bridge) removeConfList() error {
	if err := os.Remove(confListPath(b.cfg)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
