package cni

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/containernetworking/cni/pkg/utils"
)

// PortMapping forwards a port on the host to a port in the pod. It is handed
// to the portmap plugin as the "portMappings" runtime capability.
type PortMapping struct {
	// HostPort is the port on the host; it must not be zero.
	HostPort uint16
	// ContainerPort is the port inside the pod; it must not be zero.
	ContainerPort uint16
	// Protocol is "tcp" (the default when empty), "udp" or "sctp".
	Protocol string
	// HostIP restricts the mapping to one host address; empty means all.
	HostIP string
}

// AttachOption adjusts one Setup or Remove call.
type AttachOption func(*attachOptions)

// attachOptions collects the AttachOptions of one call.
type attachOptions struct {
	portMappings []PortMapping
	args         [][2]string
}

// WithPortMappings asks the portmap plugin to forward the given host ports
// to the pod. Calling it more than once adds to the list.
func WithPortMappings(pm ...PortMapping) AttachOption {
	return func(o *attachOptions) {
		o.portMappings = append(o.portMappings, pm...)
	}
}

// WithArgs adds the pair k=v to CNI_ARGS.
func WithArgs(k, v string) AttachOption {
	return func(o *attachOptions) {
		o.args = append(o.args, [2]string{k, v})
	}
}

// collectOptions validates the pod id, applies opts and validates the
// result.
func collectOptions(id string, opts []AttachOption) (attachOptions, error) {
	var o attachOptions
	if err := utils.ValidateContainerID(id); err != nil {
		return o, fmt.Errorf("invalid pod id: %s", err.Msg)
	}
	for _, opt := range opts {
		opt(&o)
	}
	for _, kv := range o.args {
		if kv[0] == "" || strings.ContainsAny(kv[0], "=;") || strings.Contains(kv[1], ";") {
			return o, fmt.Errorf("invalid CNI_ARGS pair %q=%q", kv[0], kv[1])
		}
	}
	for i, pm := range o.portMappings {
		if pm.HostPort == 0 || pm.ContainerPort == 0 {
			return o, fmt.Errorf("port mapping %d: host and container port must not be 0", i)
		}
		switch strings.ToLower(pm.Protocol) {
		case "", "tcp", "udp", "sctp":
		default:
			return o, fmt.Errorf("port mapping %d: unknown protocol %q", i, pm.Protocol)
		}
		if pm.HostIP != "" {
			if _, err := netip.ParseAddr(pm.HostIP); err != nil {
				return o, fmt.Errorf("port mapping %d: host IP: %w", i, err)
			}
		}
	}
	return o, nil
}

// portMapEntry is one element of the portMappings capability, in the JSON
// shape the portmap plugin reads.
type portMapEntry struct {
	HostPort      int    `json:"hostPort"`
	ContainerPort int    `json:"containerPort"`
	Protocol      string `json:"protocol"`
	HostIP        string `json:"hostIP,omitempty"`
}

// capabilityArgs returns the runtime capability arguments for libcni, or
// nil when there are none.
func (o attachOptions) capabilityArgs() map[string]any {
	if len(o.portMappings) == 0 {
		return nil
	}
	entries := make([]portMapEntry, len(o.portMappings))
	for i, pm := range o.portMappings {
		proto := strings.ToLower(pm.Protocol)
		if proto == "" {
			proto = "tcp"
		}
		entries[i] = portMapEntry{
			HostPort:      int(pm.HostPort),
			ContainerPort: int(pm.ContainerPort),
			Protocol:      proto,
			HostIP:        pm.HostIP,
		}
	}
	return map[string]any{"portMappings": entries}
}
