package cni

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Record is what a process needs to detach pods from a network it did not configure itself:
// the network's state dir, its conflist (the plugin chain with every plugin's configuration:
// bridge device, subnet, IPAM data dir, ...) and where its plugins are. A program keeps it
// beside each pod it attaches (podlife keeps it in the pod's record), so that the pod's
// Remove, even by another process started with another network configuration, releases
// what Setup took: the IPAM lease, the iptables rules and the veth.
type Record struct {
	// StateDir is the network's CNI state dir (libcni's cache, cni.lock).
	StateDir string `json:"stateDir"`
	// ConfList is the network's conflist, as JSON.
	ConfList json.RawMessage `json:"conflist"`
	// PluginDirs are the directories its plugins were found in.
	PluginDirs []string `json:"pluginDirs,omitempty"`
}

// Recorder is a Network that can describe itself as a Record. Bridge and the Networks
// returned by FromConfList and FromRecord are Recorders.
type Recorder interface {
	Network
	// Record returns the network's Record; FromRecord makes a Network equivalent for Remove.
	Record() Record
}

var (
	_ Recorder = (*Bridge)(nil)
	_ Recorder = (*attacher)(nil)
)

// Record implements Recorder.
func (b *Bridge) Record() Record { return b.a.Record() }

// Record implements Recorder.
func (a *attacher) Record() Record {
	return Record{StateDir: a.stateDir, ConfList: slices.Clone(a.list.Bytes), PluginDirs: slices.Clone(a.pluginDirs)}
}

// FromRecord returns a Network for a Record: FromConfList of its conflist, state dir and
// plugin dirs. Its Remove releases what the recorded network's Setup took. A Bridge made
// again this way does not claim its bridge device on Setup (see BridgeInUseError): it is
// meant for detaching.
func FromRecord(r Record) (Network, error) {
	nw, err := FromConfList(r.StateDir, r.ConfList, r.PluginDirs...)
	if err != nil {
		return nil, fmt.Errorf("cni: network from record: %w", err)
	}
	return nw, nil
}

// Equal reports whether r and o describe the same network: the same state dir and plugin
// dirs, and conflists equal as JSON up to insignificant white space.
func (r Record) Equal(o Record) bool {
	if r.StateDir != o.StateDir || !slices.Equal(r.PluginDirs, o.PluginDirs) {
		return false
	}
	var a, b bytes.Buffer
	if json.Compact(&a, r.ConfList) != nil || json.Compact(&b, o.ConfList) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}
