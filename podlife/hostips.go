package podlife

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// hostIPs returns Config.HostIPs, or by default the host's first global unicast IPv4
// address, else its first global unicast IPv6 one (read each time: the host's addresses may
// change, as a kubelet's node status follows them).
func (r *Runtime) hostIPs() ([]netip.Addr, error) {
	if len(r.cfg.HostIPs) > 0 {
		return r.cfg.HostIPs, nil
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
	return nil, errNoHostIP
}

// errNoHostIP: the host has no global unicast address and Config.HostIPs is empty.
var errNoHostIP = errors.New("host IP: the host has no global unicast address: set Config.HostIPs")
