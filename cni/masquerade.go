package cni

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
)

// A Bridge masquerades its pods' traffic with one rule for the whole subnet, installed before
// its first ADD and removed by Destroy, rather than through the bridge plugin's ipMasq, which
// makes a chain and three rules per pod: eleven iptables runs per ADD and nine (iptables and
// nft) per DEL, about a tenth of a pod's start and teardown CPU on a small host. The rule
// matches what the per-pod chains do: traffic from the subnet to outside it, multicast
// (224.0.0.0/4, ff00::/8) excepted, leaves with the host's address.
//
//	-A POSTROUTING -s <subnet> ! -d <subnet> -m addrtype ! --dst-type MULTICAST -m comment --comment "podlife-masquerade: <network>" -j MASQUERADE
//
// (IPv6 subnets: in ip6tables.) Pods attached by an earlier podlife,
// whose recorded conflists still have ipMasq, keep their per-pod chains until their DEL.

// MasqueradeComment is the iptables comment of the rule by which a Bridge whose network is
// called network masquerades its pods' traffic to destinations outside its subnet: in the nat
// table's POSTROUTING chain, added before the network's first ADD and removed by Destroy.
func MasqueradeComment(network string) string {
	return "podlife-masquerade: " + network
}

// masqRule is the rule's specification, without chain, as iptables-restore reads it.
func masqRule(network string, subnet netip.Prefix) string {
	return fmt.Sprintf("-s %s ! -d %s -m addrtype ! --dst-type MULTICAST -m comment --comment %q -j MASQUERADE",
		subnet, subnet, MasqueradeComment(network))
}

// masqTool is the iptables tool pair of subnet's family.
func masqTool(subnet netip.Prefix) ipTool {
	if subnet.Addr().Is6() {
		return ipTools()[1]
	}
	return ipTools()[0]
}

// isMasquerade reports whether r is the masquerade rule of network for subnet: networks of the
// same name on other bridges (of other state dirs) each need their own.
func isMasquerade(r rule, network string, subnet netip.Prefix) bool {
	return r.chain == "POSTROUTING" && r.comment == MasqueradeComment(network) && r.target == "MASQUERADE" &&
		strings.HasPrefix(r.line, "-A POSTROUTING -s "+subnet.String()+" ")
}

// masquerade keeps one Bridge's subnet rule: installed once per Bridge (the first ADD checks
// the host's nat table and adds the rule if it is missing; later ADDs skip the check), and
// forgotten by Destroy. Another process's Destroy of the same network removes the rule under
// this Bridge's running pods, as it removes their veths.
type masquerade struct {
	network string
	subnet  netip.Prefix
	mu      sync.Mutex
	done    bool
}

// ensure adds the rule unless it is there already. Without iptables it fails, as the bridge
// plugin's ipMasq did.
func (m *masquerade) ensure(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		return nil
	}
	tool := masqTool(m.subnet)
	t, err := tool.dump(ctx, "nat")
	if err != nil {
		return fmt.Errorf("masquerade the pods' traffic: %w", err)
	}
	if t == nil {
		// As the bridge plugin's ipMasq fails without iptables, so does the ADD.
		return fmt.Errorf("masquerade the pods' traffic: %s cannot read the nat table (NoIPMasq turns masquerading off)", tool.save)
	}
	for _, r := range t.rules {
		if isMasquerade(r, m.network, m.subnet) {
			m.done = true
			return nil
		}
	}
	if err := tool.apply(ctx, "*nat\n-A POSTROUTING "+masqRule(m.network, m.subnet)+"\nCOMMIT\n"); err != nil {
		return fmt.Errorf("masquerade the pods' traffic: %w", err)
	}
	m.done = true
	return nil
}

// remove deletes the rule, if present, and makes the next ensure check again.
func (m *masquerade) remove(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = false
	tool := masqTool(m.subnet)
	t, err := tool.dump(ctx, "nat")
	if err != nil || t == nil {
		return err
	}
	return tool.apply(ctx, t.removal(func(r rule) bool { return isMasquerade(r, m.network, m.subnet) }))
}
