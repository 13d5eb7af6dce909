package worker

import (
	"net/netip"
	"strings"

	. "github.com/podlife/podlife/podlife/internal/api"

	"fmt"
)

// fieldValue returns the value of field f of pod p, as the kubelet resolves it when it creates
// a container (podFieldSelectorRuntimeValue): the pod's network is attached by then.
func (p *Worker) fieldValue(f PodField) (string, error) {
	switch f {
	case FieldPodUID:
		return p.uid, nil
	case FieldHostIP, FieldHostIPs:
		ips, err := p.rt.HostIPs()
		if err != nil {
			return "", err
		}
		if f == FieldHostIP {
			return ips[0].String(), nil
		}
		return joinAddrs(ips), nil
	case FieldPodIP, FieldPodIPs:
		if p.spec.HostNetwork {
			// The kubelet reports the node's addresses as a host-network pod's IPs.
			ips, err := p.rt.HostIPs()
			if err != nil {
				return "", err
			}
			if f == FieldPodIP {
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
		if e.From == FieldPodIP || e.From == FieldPodIPs {
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
