package cni

import (
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"

	"github.com/containernetworking/cni/pkg/utils"
)

// Defaults applied by NewBridge to zero fields of BridgeConfig.
const (
	DefaultNetworkName = "podlife"
	DefaultBridgeName  = "podlife0"
	DefaultSubnet      = "10.88.0.0/16"
)

// BridgeConfig describes a bridge network: pods get a veth on a Linux
// bridge and an address from host-local IPAM, and can have host ports
// forwarded to them by the portmap plugin.
type BridgeConfig struct {
	// Name is the CNI network name; default "podlife".
	Name string
	// Bridge is the bridge device; default "podlife0", at most 15 bytes
	// (IFNAMSIZ). It belongs to one network of one state dir at a time:
	// Setup fails with a *BridgeInUseError while another one has pods on it.
	Bridge string
	// Subnet is the pod subnet; default 10.88.0.0/16. The bridge takes its
	// first address as the pods' gateway.
	Subnet netip.Prefix
	// StateDir is required. The conflist is written to
	// StateDir/net.d/<Name>.conflist, libcni caches results in
	// StateDir/cache, host-local keeps leases in StateDir/ipam/<Name>, and
	// StateDir/cni.lock serialises CNI calls across processes.
	StateDir string
	// PluginDirs are searched for plugin binaries. Default: those of
	// /opt/cni/bin, /usr/lib/cni and /usr/libexec/cni that exist.
	PluginDirs []string
	// NoIPMasq turns off masquerading of traffic from pods to destinations
	// outside Subnet. Masquerading is on by default, as in containerd's and
	// Podman's default networks, so that pods reach beyond the host: one
	// nat rule for the whole subnet (MasqueradeComment), added by the
	// network's first Setup and removed by Destroy, not a chain per pod.
	// Pods can always reach the host and each other, and forwarded host
	// ports work either way.
	NoIPMasq bool
	// MTU of the bridge and veths; 0 lets the bridge plugin choose.
	MTU int
}

// withDefaults returns c with defaults applied to zero fields and StateDir
// made absolute.
func (c BridgeConfig) withDefaults() (BridgeConfig, error) {
	if c.Name == "" {
		c.Name = DefaultNetworkName
	}
	if c.Bridge == "" {
		c.Bridge = DefaultBridgeName
	}
	if !c.Subnet.IsValid() {
		c.Subnet = netip.MustParsePrefix(DefaultSubnet)
	}
	if c.StateDir != "" {
		abs, err := filepath.Abs(c.StateDir)
		if err != nil {
			return c, fmt.Errorf("cni: BridgeConfig.StateDir: %w", err)
		}
		c.StateDir = abs
	}
	if len(c.PluginDirs) == 0 {
		c.PluginDirs = existingDirs(defaultPluginDirs())
	} else {
		c.PluginDirs = slices.Clone(c.PluginDirs)
	}
	return c, nil
}

// validate checks a config that has its defaults applied. Errors name the
// offending field.
func (c BridgeConfig) validate() error {
	var errs []error
	field := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("cni: BridgeConfig.%s: "+format, append([]any{name}, args...)...))
	}
	if err := utils.ValidateNetworkName(c.Name); err != nil {
		field("Name", "%q: %s", c.Name, err.Msg)
	}
	if err := utils.ValidateInterfaceName(c.Bridge); err != nil {
		field("Bridge", "%q: %v", c.Bridge, err)
	}
	if err := validSubnet(c.Subnet); err != nil {
		field("Subnet", "%s: %v", c.Subnet, err)
	}
	if c.StateDir == "" {
		field("StateDir", "required")
	}
	if c.MTU != 0 && (c.MTU < 68 || c.MTU > 65535) {
		field("MTU", "%d out of range 68..65535", c.MTU)
	}
	if err := checkPluginDirs(c.PluginDirs); err != nil {
		field("PluginDirs", "%v", err)
	} else if err := findPlugins(c.PluginDirs, bridgePluginTypes()...); err != nil {
		field("PluginDirs", "%v", err)
	}
	return errors.Join(errs...)
}

// validSubnet requires a masked prefix with room for a gateway and pods.
func validSubnet(p netip.Prefix) error {
	if p != p.Masked() {
		return fmt.Errorf("host bits set (did you mean %s?)", p.Masked())
	}
	if p.Bits() > p.Addr().BitLen()-2 {
		return errors.New("too small for a gateway and pods")
	}
	return nil
}
