package cni

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/utils"
)

// FromConfList returns a Network for a user-supplied conflist. The conflist
// is parsed once; its plugins are looked up in pluginDirs (default: those
// of /opt/cni/bin, /usr/lib/cni and /usr/libexec/cni that exist) and must
// all be present. libcni's cache lives in stateDir/cache and calls are
// serialised on stateDir/cni.lock, as for Bridge. Where the plugins keep
// their state (for example host-local's dataDir) is up to the conflist.
func FromConfList(stateDir string, conflist []byte, pluginDirs ...string) (Network, error) {
	fail := func(err error) error { return fmt.Errorf("cni: FromConfList: %w", err) }
	if stateDir == "" {
		return nil, fail(errors.New("state dir required"))
	}
	stateDir, err := filepath.Abs(stateDir)
	if err != nil {
		return nil, fail(err)
	}
	list, err := libcni.ConfListFromBytes(conflist)
	if err != nil {
		return nil, fail(err)
	}
	if err := utils.ValidateNetworkName(list.Name); err != nil {
		return nil, fail(err)
	}
	if len(list.Plugins) == 0 {
		return nil, fail(fmt.Errorf("network %q has no plugins", list.Name))
	}
	pluginDirs = slices.Clone(pluginDirs)
	if len(pluginDirs) == 0 {
		pluginDirs = existingDirs(defaultPluginDirs())
	}
	if err := checkPluginDirs(pluginDirs); err != nil {
		return nil, fail(err)
	}
	pluginTypes := make([]string, len(list.Plugins))
	for i, p := range list.Plugins {
		pluginTypes[i] = p.Network.Type
	}
	if err := findPlugins(pluginDirs, pluginTypes...); err != nil {
		return nil, fail(err)
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, fail(err)
	}
	return newAttacher(stateDir, list, pluginDirs), nil
}
