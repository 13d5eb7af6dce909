package cni

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// confListVersion is the CNI spec version of generated conflists: the
// newest one the Debian 1.1.1 plugins speak.
const confListVersion = "1.0.0"

// The JSON shapes of the generated conflist. Field order is the output
// order, so the file is stable across runs.
type (
	confListJSON struct {
		CNIVersion string `json:"cniVersion"`
		Name       string `json:"name"`
		Plugins    []any  `json:"plugins"`
	}
	bridgePlugin struct {
		Type        string    `json:"type"`
		Bridge      string    `json:"bridge"`
		IsGateway   bool      `json:"isGateway"`
		IPMasq      bool      `json:"ipMasq"`
		HairpinMode bool      `json:"hairpinMode"`
		MTU         int       `json:"mtu,omitempty"`
		IPAM        ipamBlock `json:"ipam"`
	}
	ipamBlock struct {
		Type    string        `json:"type"`
		Ranges  [][]ipamRange `json:"ranges"`
		Routes  []ipamRoute   `json:"routes"`
		DataDir string        `json:"dataDir"`
	}
	ipamRange struct {
		Subnet string `json:"subnet"`
	}
	ipamRoute struct {
		Dst string `json:"dst"`
	}
	portmapPlugin struct {
		Type         string          `json:"type"`
		Capabilities map[string]bool `json:"capabilities"`
		SNAT         bool            `json:"snat"`
	}
)

// bridgePluginTypes are the plugins a bridge conflist runs, in order.
func bridgePluginTypes() []string {
	return []string{"bridge", "host-local", "portmap"}
}

// ipamDataDir is where host-local keeps its leases for all networks of a
// state dir; each network gets a subdirectory named after it.
func ipamDataDir(stateDir string) string {
	return filepath.Join(stateDir, "ipam")
}

// bridgeConfList renders the conflist for a config with defaults applied.
// The bridge plugin is the pods' gateway (the Bridge masquerades the pods'
// traffic itself, with one rule for the subnet); host-local hands out addresses with a default route; portmap
// forwards host ports, masquerading localhost and hairpin connections
// (snat) so that 127.0.0.1:<hostPort> works from the host.
func bridgeConfList(c BridgeConfig) ([]byte, error) {
	defaultRoute := "0.0.0.0/0"
	if c.Subnet.Addr().Is6() {
		defaultRoute = "::/0"
	}
	list := confListJSON{
		CNIVersion: confListVersion,
		Name:       c.Name,
		Plugins: []any{
			bridgePlugin{
				Type:        "bridge",
				Bridge:      c.Bridge,
				IsGateway:   true,
				IPMasq:      false, // one rule for the subnet instead (masquerade.go)
				HairpinMode: true,
				MTU:         c.MTU,
				IPAM: ipamBlock{
					Type:    "host-local",
					Ranges:  [][]ipamRange{{{Subnet: c.Subnet.String()}}},
					Routes:  []ipamRoute{{Dst: defaultRoute}},
					DataDir: ipamDataDir(c.StateDir),
				},
			},
			portmapPlugin{
				Type:         "portmap",
				Capabilities: map[string]bool{"portMappings": true},
				SNAT:         true,
			},
		},
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode conflist: %w", err)
	}
	return append(b, '\n'), nil
}
