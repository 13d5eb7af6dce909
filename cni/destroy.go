package cni

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Destroy removes what the network leaves on the host once no pod uses it:
// the veths still enslaved to the bridge, the bridge itself, the iptables
// rules and per-pod chains tagged with the network's name (with the filter
// rule that keeps pods off the host's 127.0.0.0/8 and the masquerade rule
// of its subnet), the IPAM leases,
// the network's cache entries and the conflist file. It is meant for tests
// and for uninstalling; a pod still attached loses its connectivity. It is
// idempotent. The Bridge stays usable: a later Setup recreates what it needs
// (but not the conflist file, which NewBridge writes). StateDir/cni.lock
// stays too: deleting a lock file under its waiters would break the lock.
//
// While another network (of another state dir) has pods on the bridge and
// owns it (see BridgeInUseError), Destroy leaves the bridge, its veths and,
// if that network has the same name, the iptables rules, localnet guard and
// masquerade rule tagged with the name alone: they are the owner's. It then removes only
// what is in its own state dir.
//
// portmap's host-wide chains (CNI-HOSTPORT-DNAT, -SETMARK, -MASQ) stay: they
// are shared with every other CNI network on the host, are inert without
// port mappings, and deleting them can break a concurrent portmap ADD of
// another process, which no lock of ours covers.
func (b *Bridge) Destroy(ctx context.Context) error {
	name := b.cfg.Name
	unlock, err := b.a.lock.lock(ctx)
	if err != nil {
		return fmt.Errorf("cni: destroy network %q: %w", name, err)
	}
	defer unlock()

	owner, unlockClaim, err := b.claim.hold(ctx)
	if err != nil {
		return fmt.Errorf("cni: destroy network %q: %w", name, err)
	}
	defer unlockClaim()

	var errs []error
	step := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("cni: destroy network %q: %s: %w", name, what, err))
		}
	}
	if owner == nil {
		ports, err := bridgePorts(b.cfg.Bridge)
		step("list bridge ports", err)
		for _, p := range ports {
			step("delete veth", deleteLink(p))
		}
		step("delete bridge", deleteLink(b.cfg.Bridge))
	}
	if owner == nil || owner.Network != name {
		step("remove iptables rules", sweepOwned(ctx, name, ""))
		step("remove localnet guard", unguardLocalnet(ctx, name, b.cfg.Bridge))
		step("remove masquerade rule", b.masq.remove(ctx))
	}
	step("remove IPAM leases", removeIPAMData(b.cfg.StateDir, name))
	step("remove cache entries", removeCachedResults(b.cfg.StateDir, name))
	step("remove conflist", b.removeConfList())
	if owner == nil {
		step("drop bridge claim", b.claim.drop())
	}
	return errors.Join(errs...)
}

// removeIPAMData deletes host-local's lease directory for network, and the
// IPAM data dir if that leaves it empty.
func removeIPAMData(stateDir, network string) error {
	dataDir := ipamDataDir(stateDir)
	if err := os.RemoveAll(filepath.Join(dataDir, network)); err != nil {
		return err
	}
	_ = os.Remove(dataDir) // fails, harmlessly, while other networks use it
	return nil
}
