package podlife

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// fieldValue returns the value of field f of pod p, as the kubelet resolves it when it creates
// a container (podFieldSelectorRuntimeValue): the pod's network is attached by then.
func (p *podWorker) fieldValue(f PodField) (string, error) {
	switch f {
	case api.FieldPodUID:
		return p.uid, nil
	case api.FieldHostIP, api.FieldHostIPs:
		ips, err := p.rt.hostIPs()
		if err != nil {
			return "", err
		}
		if f == api.FieldHostIP {
			return ips[0].String(), nil
		}
		return joinAddrs(ips), nil
	case api.FieldPodIP, api.FieldPodIPs:
		if p.spec.HostNetwork {
			// The kubelet reports the node's addresses as a host-network pod's IPs.
			ips, err := p.rt.hostIPs()
			if err != nil {
				return "", err
			}
			if f == api.FieldPodIP {
				return ips[0].String(), nil
			}
			return joinAddrs(ips), nil
		}
		if ip := p.sandbox.IP(); ip.IsValid() {
			return ip.String(), nil
		}
		return "", nil // no address: the kubelet gives "" too
	}
	return "", fmt.Errorf("unknown pod field %q", f)
}

// needsPodIP tells whether c's environment has the pod's IP, which is known once the network
// is attached (with HostNetwork, the host's: known at once).
func (c *Container) needsPodIP() bool {
	if c.pod.spec.HostNetwork {
		return false
	}
	for _, e := range c.spec.Env {
		if e.From == api.FieldPodIP || e.From == api.FieldPodIPs {
			return true
		}
	}
	return false
}

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

func joinAddrs(ips []netip.Addr) string {
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ",")
}
