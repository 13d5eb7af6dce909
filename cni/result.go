package cni

import (
	"fmt"
	"net/netip"

	cnitypes "github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
)

// Result is the part of a CNI result podlife uses: the pod's interface and
// its primary address (the first IPv4 address, else the first IPv6 one).
type Result struct {
	// Interface is the interface name inside the pod, e.g. "eth0".
	Interface string
	// IP is the pod's primary address. It is the zero Addr for networks
	// without IPAM.
	IP netip.Addr
	// Prefix is IP with the length of its on-link prefix, e.g.
	// 10.88.0.5/16; Prefix.Masked() is the subnet.
	Prefix netip.Prefix
	// Gateway is the gateway the IPAM plugin reported for IP, if any.
	Gateway netip.Addr
	// MAC is the hardware address of Interface, if the plugin reported it.
	MAC string
	// DNS is the DNS configuration the plugins reported, often empty.
	DNS cnitypes.DNS

	raw *types100.Result
}

// Raw returns the full CNI result, in the types/100 form (its CNIVersion is
// the newest that package implements, whatever the plugins spoke).
func (r *Result) Raw() *types100.Result {
	return r.raw
}

// newResult converts a plugin result and picks out the sandbox interface
// named ifName and its primary address.
func newResult(res cnitypes.Result, ifName string) (*Result, error) {
	raw, err := types100.NewResultFromResult(res)
	if err != nil {
		return nil, fmt.Errorf("convert result: %w", err)
	}
	out := &Result{Interface: ifName, DNS: raw.DNS, raw: raw}

	ifIndex := -1
	for i, iface := range raw.Interfaces {
		if iface.Name == ifName && iface.Sandbox != "" {
			ifIndex = i
			out.MAC = iface.Mac
			break
		}
	}
	for _, ipc := range raw.IPs {
		if ifIndex >= 0 && ipc.Interface != nil && *ipc.Interface != ifIndex {
			continue
		}
		addr, ok := netip.AddrFromSlice(ipc.Address.IP)
		if !ok {
			continue
		}
		addr = addr.Unmap()
		if out.IP.IsValid() && !(out.IP.Is6() && addr.Is4()) {
			continue
		}
		ones, _ := ipc.Address.Mask.Size()
		out.IP = addr
		out.Prefix = netip.PrefixFrom(addr, ones)
		out.Gateway = netip.Addr{}
		if gw, ok := netip.AddrFromSlice(ipc.Gateway); ok {
			out.Gateway = gw.Unmap()
		}
	}
	return out, nil
}
