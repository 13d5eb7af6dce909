package hostlookup

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// HostIPs returns configured (the Config's HostIPs), or by default the host's first global
// unicast IPv4 address, else its first global unicast IPv6 one (read at each call: the host's
// addresses may change, as a kubelet's node status follows them).
func HostIPs(configured []netip.Addr) ([]netip.Addr, error) {
	if len(configured) > 0 {
		return configured, nil
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("host IP: %w", err)
	}
	var v6 netip.Addr
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || !n.IP.IsGlobalUnicast() {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if ip.Is4() {
			return []netip.Addr{ip}, nil
		}
		if !v6.IsValid() {
			v6 = ip
		}
	}
	if v6.IsValid() {
		return []netip.Addr{v6}, nil
	}
	return nil, ErrNoHostIP
}

// ErrNoHostIP: the host has no global unicast address and the Config's HostIPs is empty.
var ErrNoHostIP = errors.New("host IP: the host has no global unicast address: set Config.HostIPs")
