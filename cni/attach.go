package cni

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/version"
)

// podIfName is the name of the pod's interface inside its netns.
const podIfName = "eth0"

// cleanupTimeout bounds the DEL that undoes a failed ADD, which runs even if
// the caller's context is done.
const cleanupTimeout = 30 * time.Second

// attacher runs one parsed conflist against pods through libcni. It is the
// common core of Bridge and FromConfList; the config list is parsed once and
// reused by every call.
type attacher struct {
	cni  *libcni.CNIConfig
	list *libcni.NetworkConfigList
	// stateDir and pluginDirs are those the attacher was made with, for its Record.
	stateDir   string
	pluginDirs []string
	// lean is list without the plugins that do nothing on a call without
	// capability arguments, used for such calls to save their exec.
	lean *libcni.NetworkConfigList
	lock *stateLock
	// beforePortMapping, if set, runs under the lock before every ADD with
	// port mappings; its failure fails the Setup, changing nothing. Bridge
	// installs its localnet guard there.
	beforePortMapping func(ctx context.Context) error
	// beforeAdd, if set, runs under the lock before every ADD; its
	// failure fails the Setup, changing nothing, and the func it returns
	// runs once the ADD (or its undo) is over. Bridge claims its bridge
	// device there (see BridgeInUseError).
	beforeAdd func(ctx context.Context) (func(), error)
}

// newAttacher prepares list for use with the plugins in pluginDirs, caching
// results under stateDir/cache and locking stateDir/cni.lock.
func newAttacher(stateDir string, list *libcni.NetworkConfigList, pluginDirs []string) *attacher {
	lock := newStateLock(filepath.Join(stateDir, "cni.lock"))
	exec := &pluginExec{
		DefaultExec: &invoke.DefaultExec{
			RawExec:       &invoke.RawExec{Stderr: os.Stderr},
			PluginDecoder: version.PluginDecoder{},
		},
		lock:   lock,
		stderr: os.Stderr,
	}
	return &attacher{
		cni:        libcni.NewCNIConfigWithCacheDir(pluginDirs, cacheDir(stateDir), exec),
		list:       list,
		stateDir:   stateDir,
		pluginDirs: pluginDirs,
		lean:       withoutIdlePlugins(list),
		lock:       lock,
	}
}

// cacheDir is libcni's cache directory for a state dir.
func cacheDir(stateDir string) string {
	return filepath.Join(stateDir, "cache")
}

// Setup implements Network.
func (a *attacher) Setup(ctx context.Context, id, netnsPath string, opts ...AttachOption) (*Result, error) {
	fail := func(err error) error { return opError("ADD", a.list.Name, id, err) }
	o, err := collectOptions(id, opts)
	if err != nil {
		return nil, fail(err)
	}
	if err := checkNetNS(netnsPath); err != nil {
		return nil, fail(err)
	}
	rt := runtimeConf(id, netnsPath, o)

	unlock, err := a.lock.lock(ctx)
	if err != nil {
		return nil, fail(err)
	}
	defer unlock()

	// A second ADD would fail, and the DEL that undoes a failed ADD would
	// then tear down the pod's existing attachment.
	if _, cachedRT, _ := a.cni.GetNetworkListCachedConfig(a.list, rt); cachedRT != nil {
		return nil, fail(errors.New("pod is already attached; Remove it first"))
	}
	if a.beforeAdd != nil {
		done, err := a.beforeAdd(ctx)
		if err != nil {
			return nil, fail(err)
		}
		defer done()
	}
	if len(rt.CapabilityArgs) > 0 && a.beforePortMapping != nil {
		if err := a.beforePortMapping(ctx); err != nil {
			return nil, fail(err)
		}
	}
	list := a.listFor(rt)
	raw, err := a.cni.AddNetworkList(ctx, list, rt)
	if err == nil {
		var res *Result
		if res, err = newResult(raw, podIfName); err == nil {
			return res, nil
		}
	}
	// A failed ADD must be followed by a DEL, so that the plugins that did
	// succeed release what they took.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if delErr := a.cni.DelNetworkList(cctx, list, rt); delErr != nil {
		err = errors.Join(err, fmt.Errorf("undo: %w", delErr))
	}
	return nil, fail(err)
}

// Remove implements Network.
func (a *attacher) Remove(ctx context.Context, id, netnsPath string, opts ...AttachOption) error {
	fail := func(err error) error { return opError("DEL", a.list.Name, id, err) }
	o, err := collectOptions(id, opts)
	if err != nil {
		return fail(err)
	}
	// Plugins fail DEL on a path that exists but is no longer a netns (an
	// unmounted pin), and they all accept an empty CNI_NETNS.
	if checkNetNS(netnsPath) != nil {
		netnsPath = ""
	}
	rt := runtimeConf(id, netnsPath, o)

	unlock, err := a.lock.lock(ctx)
	if err != nil {
		return fail(err)
	}
	defer unlock()

	cached := a.fillFromCache(rt, o)
	if err := a.cni.DelNetworkList(ctx, a.listFor(rt), rt); err != nil {
		return fail(err)
	}
	if netnsPath == "" || !cached {
		if err := sweepOwned(ctx, a.list.Name, id); err != nil {
			return fail(fmt.Errorf("remove leftover iptables rules: %w", err))
		}
	}
	return nil
}

// fillFromCache completes rt with the CNI_ARGS and capability arguments
// (port mappings) that Setup recorded, where the caller gave none. It
// reports whether there was a usable cache entry; an unreadable one counts
// as none, like libcni's DEL does.
func (a *attacher) fillFromCache(rt *libcni.RuntimeConf, o attachOptions) bool {
	_, cachedRT, err := a.cni.GetNetworkListCachedConfig(a.list, rt)
	if err != nil || cachedRT == nil {
		return false
	}
	if len(o.portMappings) == 0 {
		rt.CapabilityArgs = cachedRT.CapabilityArgs
	}
	if len(o.args) == 0 {
		rt.Args = cachedRT.Args
	}
	return true
}

// listFor picks the config list for a call: the lean one unless the call
// has capability arguments (port mappings).
func (a *attacher) listFor(rt *libcni.RuntimeConf) *libcni.NetworkConfigList {
	if len(rt.CapabilityArgs) == 0 {
		return a.lean
	}
	return a.list
}

// withoutIdlePlugins returns list minus its portmap plugins, which pass
// ADD through and ignore DEL when they get no port mappings. The copy keeps
// list's bytes, so libcni still caches the full conflist. If nothing is
// left out (or nothing would be left), list itself is returned.
func withoutIdlePlugins(list *libcni.NetworkConfigList) *libcni.NetworkConfigList {
	var keep []*libcni.PluginConfig
	for _, p := range list.Plugins {
		if p.Network.Type != "portmap" {
			keep = append(keep, p)
		}
	}
	if len(keep) == len(list.Plugins) || len(keep) == 0 {
		return list
	}
	lean := *list
	lean.Plugins = keep
	return &lean
}

// runtimeConf builds the libcni runtime configuration for one call.
func runtimeConf(id, netnsPath string, o attachOptions) *libcni.RuntimeConf {
	return &libcni.RuntimeConf{
		ContainerID:    id,
		NetNS:          netnsPath,
		IfName:         podIfName,
		Args:           o.args,
		CapabilityArgs: o.capabilityArgs(),
	}
}
