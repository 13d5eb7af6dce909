package cni

import (
	"context"
	"fmt"
)

// The localnet guard closes the hole CVE-2020-8558 opened in Kubernetes:
// portmap with snat sets route_localnet on the bridge, so that
// 127.0.0.1:<hostPort> works from the host, and from then on the kernel
// also routes packets that a pod sends to 127.0.0.0/8 (through the bridge's
// MAC) to the host's loopback services. The guard is kube-proxy's
// KUBE-FIREWALL rule scoped to one bridge: in the filter table's INPUT
// chain, drop what arrives from the bridge for 127.0.0.0/8 unless conntrack
// knows it as a reply (RELATED, ESTABLISHED) or as DNAT'd traffic (the
// port mappings themselves). It is IPv4 only: the kernel never routes ::1
// off the loopback device.

// LocalnetGuardComment is the iptables comment of the rule by which a Bridge
// whose network is called network keeps pods off the host's 127.0.0.0/8: a
// DROP at the head of the filter table's INPUT chain, added before the
// network's first port mapping and removed by Destroy.
func LocalnetGuardComment(network string) string {
	return "podlife-localnet-guard: " + network
}

// localnetRule is the guard's rule specification, without chain, as
// iptables-restore reads it.
func localnetRule(network, bridge string) string {
	return fmt.Sprintf("-i %s -d 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT "+
		"-m comment --comment %q -j DROP", bridge, LocalnetGuardComment(network))
}

// isLocalnetGuard reports whether r is the guard of network on bridge:
// networks of the same name on other bridges (of other state dirs) each
// need their own.
func isLocalnetGuard(r rule, network, bridge string) bool {
	return r.chain == "INPUT" && r.comment == LocalnetGuardComment(network) && r.in == bridge
}

// guardLocalnet inserts the guard of network at the head of INPUT unless it
// is already there. A host without iptables gets none: then no plugin can
// add the port mappings that set route_localnet either.
func guardLocalnet(ctx context.Context, network, bridge string) error {
	tool := ipTools()[0] // IPv4
	t, err := tool.dump(ctx, "filter")
	if err != nil || t == nil {
		return err
	}
	for _, r := range t.rules {
		if isLocalnetGuard(r, network, bridge) {
			return nil
		}
	}
	return tool.apply(ctx, "*filter\n-I INPUT 1 "+localnetRule(network, bridge)+"\nCOMMIT\n")
}

// unguardLocalnet deletes the guard of network on bridge, if present.
func unguardLocalnet(ctx context.Context, network, bridge string) error {
	tool := ipTools()[0]
	t, err := tool.dump(ctx, "filter")
	if err != nil || t == nil {
		return err
	}
	return tool.apply(ctx, t.removal(func(r rule) bool { return isLocalnetGuard(r, network, bridge) }))
}
