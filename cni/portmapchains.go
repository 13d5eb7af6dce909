package cni

import (
	"context"
	"errors"
)

// portmapDNATChain is the host-wide chain through which the portmap plugin
// routes every pod's port mappings.
const portmapDNATChain = "CNI-HOSTPORT-DNAT"

// portmapSharedChains are the host-wide nat chains the portmap plugin
// creates on first use and never removes.
func portmapSharedChains() []string {
	return []string{portmapDNATChain, "CNI-HOSTPORT-SETMARK", "CNI-HOSTPORT-MASQ"}
}

// sweepIdlePortmapChains drops portmap's host-wide chains, and the rules
// that jump to them, from the nat tables when no pod of any network has a
// port mapping left (CNI-HOSTPORT-DNAT is empty). portmap recreates them on
// its next ADD with port mappings.
func sweepIdlePortmapChains(ctx context.Context) error {
	var errs []error
	for _, tool := range ipTools() {
		t, err := tool.dump(ctx, "nat")
		if err != nil || t == nil {
			errs = append(errs, err)
			continue
		}
		if !t.chains[portmapDNATChain] || len(t.rulesIn(portmapDNATChain)) > 0 {
			continue
		}
		errs = append(errs, tool.apply(ctx, t.removal(nil, portmapSharedChains()...)))
	}
	return errors.Join(errs...)
}
