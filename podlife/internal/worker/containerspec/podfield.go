package containerspec

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Pod is what the downward API reads of a pod.
type Pod struct {
	UID         string
	HostNetwork bool
	// HostIPs returns the host's IPs (status.hostIPs).
	HostIPs func() ([]netip.Addr, error)
	// IP returns the pod's IP on its network, invalid until the network is attached.
	IP func() netip.Addr
}

// FieldValue returns the value of field f of pod p, as the kubelet resolves it when it creates
// a container (podFieldSelectorRuntimeValue): the pod's network is attached by then.
func FieldValue(p Pod, f api.PodField) (string, error) {
	switch f {
	case api.FieldPodUID:
		return p.UID, nil
	case api.FieldHostIP, api.FieldHostIPs:
		ips, err := p.HostIPs()
		if err != nil {
			return "", err
		}
		if f == api.FieldHostIP {
			return ips[0].String(), nil
		}
		return joinAddrs(ips), nil
	case api.FieldPodIP, api.FieldPodIPs:
		if p.HostNetwork {
			// The kubelet reports the node's addresses as a host-network pod's IPs.
			ips, err := p.HostIPs()
			if err != nil {
				return "", err
			}
			if f == api.FieldPodIP {
				return ips[0].String(), nil
			}
			return joinAddrs(ips), nil
		}
		if ip := p.IP(); ip.IsValid() {
			return ip.String(), nil
		}
		return "", nil // no address: the kubelet gives "" too
	}
	return "", fmt.Errorf("unknown pod field %q", f)
}

// NeedsPodIP tells whether c's environment has the pod's IP, which is known once the network
// is attached (with HostNetwork, the host's: known at once).
func NeedsPodIP(ps *api.PodSpec, c *api.ContainerSpec) bool {
	if ps.HostNetwork {
		return false
	}
	for _, e := range c.Env {
		if e.From == api.FieldPodIP || e.From == api.FieldPodIPs {
			return true
		}
	}
	return false
}

func joinAddrs(ips []netip.Addr) string {
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ",")
}
