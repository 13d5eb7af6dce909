package cni

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
)

// BridgeClaimDir is where Bridges record, host-wide, which network of which
// state dir owns each bridge device: <bridge>.json names the owner, and an
// flock on <bridge>.lock orders the claims of all processes. It is on /run,
// a tmpfs, because a bridge and the pods on it do not survive a reboot
// either.
const BridgeClaimDir = "/run/podlife/bridges"

// BridgeInUseError is the error (wrapped) of a Setup on a bridge device that
// a network of another state dir (or another network of the same state dir)
// owns: host-local keeps its leases per state dir and network, so the two
// would hand out the same addresses. The owner keeps the bridge while it
// has pods on it (host-local leases).
type BridgeInUseError struct {
	// Bridge is the bridge device.
	Bridge string
	// StateDir and Network are the owner's BridgeConfig.StateDir and Name.
	StateDir string
	Network  string
}

// Error implements error.
func (e *BridgeInUseError) Error() string {
	return fmt.Sprintf("bridge %q is in use by network %q of state dir %s, which has pods on it: "+
		"two state dirs on one bridge would give pods the same addresses; "+
		"give this one another bridge and subnet (BridgeConfig.Bridge and .Subnet, --bridge and --subnet)",
		e.Bridge, e.Network, e.StateDir)
}

// bridgeOwner is the content of a claim file.
type bridgeOwner struct {
	StateDir string `json:"stateDir"`
	Network  string `json:"network"`
}

// bridgeClaim is one Bridge's claim on its bridge device.
type bridgeClaim struct {
	dir    string
	bridge string
	me     bridgeOwner
	lock   *stateLock
}

// newBridgeClaim returns the claim of the network of c (defaults applied)
// on its bridge, under BridgeClaimDir.
func newBridgeClaim(c BridgeConfig) *bridgeClaim {
	dir := BridgeClaimDir
	return &bridgeClaim{
		dir:    dir,
		bridge: c.Bridge,
		me:     bridgeOwner{StateDir: c.StateDir, Network: c.Name},
		lock:   newStateLock(filepath.Join(dir, c.Bridge+".lock")),
	}
}

// path is the claim file, naming the owner.
func (c *bridgeClaim) path() string { return filepath.Join(c.dir, c.bridge+".json") }

// hold takes the host-wide lock of the bridge and returns the owner if
// that is another network with pods on the bridge (nil otherwise), and the
// func that releases the lock. Callers that change the bridge's leases
// (ADD) or the bridge itself (Destroy) hold it throughout, so that no other
// state dir can take the bridge over meanwhile.
func (c *bridgeClaim) hold(ctx context.Context) (*bridgeOwner, func(), error) {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("bridge claim: %w", err)
	}
	unlock, err := c.lock.lock(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("bridge claim: %w", err)
	}
	owner, err := c.read()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	if owner == nil || *owner == c.me {
		return nil, unlock, nil
	}
	if !owner.hasLeases() {
		return nil, unlock, nil
	}
	return owner, unlock, nil
}

// take makes this network the bridge's owner, refusing with a
// *BridgeInUseError if another network with pods on it owns it. On success
// the caller holds the bridge's lock until it calls the returned func.
func (c *bridgeClaim) take(ctx context.Context) (func(), error) {
	owner, unlock, err := c.hold(ctx)
	if err != nil {
		return nil, err
	}
	if owner != nil {
		unlock()
		return nil, &BridgeInUseError{Bridge: c.bridge, StateDir: owner.StateDir, Network: owner.Network}
	}
	if cur, _ := c.read(); cur == nil || *cur != c.me {
		data, err := json.Marshal(c.me)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("bridge claim: %w", err)
		}
		if err := writeFileAtomic(c.path(), append(data, '\n'), 0o644); err != nil {
			unlock()
			return nil, fmt.Errorf("bridge claim: %w", err)
		}
	}
	return unlock, nil
}

// drop deletes the claim file, whether it names this network or an owner
// without pods on the bridge. The caller holds the lock, and hold found no
// other owner with pods.
func (c *bridgeClaim) drop() error {
	if err := os.Remove(c.path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("bridge claim: %w", err)
	}
	return nil
}

// read returns the bridge's owner, nil if there is no claim. A claim that
// cannot be parsed (a torn write) counts as none: it names no one.
func (c *bridgeClaim) read() (*bridgeOwner, error) {
	data, err := os.ReadFile(c.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bridge claim: %w", err)
	}
	var o bridgeOwner
	if json.Unmarshal(data, &o) != nil || o.StateDir == "" || o.Network == "" {
		return nil, nil
	}
	return &o, nil
}

// hasLeases reports whether host-local holds an address for the owner's
// network in its state dir: whether the owner has pods on the bridge. A
// state dir that is gone holds none. A lease directory that cannot be read
// counts as in use.
func (o bridgeOwner) hasLeases() bool {
	entries, err := os.ReadDir(filepath.Join(ipamDataDir(o.StateDir), o.Network))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := netip.ParseAddr(e.Name()); err == nil {
			return true
		}
	}
	return false
}
