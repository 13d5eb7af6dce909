//go:build linux

package cni

import (
	"context"
	"strings"
	"testing"
)

// masqueradeRules lists the nat rules commented as network's masquerade rule.
func masqueradeRules(t testing.TB, network string) []string {
	t.Helper()
	return natRules(t, func(r rule) bool { return r.comment == MasqueradeComment(network) })
}

// A masquerading Bridge's pods go out through one rule for the subnet, added once however many
// pods attach, with no per-pod chain; Destroy removes it (newTestBridge's cleanup checks).
func TestMasqueradeOneRuleForTheSubnet(t *testing.T) {
	b := newTestBridge(t, true)
	cfg := b.Config()
	if got := masqueradeRules(t, cfg.Name); len(got) != 0 {
		t.Fatalf("masquerade rules before the first Setup: %q", got)
	}
	p1, p2 := attach(t, b), attach(t, b)
	got := masqueradeRules(t, cfg.Name)
	want := "-A POSTROUTING -s " + cfg.Subnet.String() + " ! -d " + cfg.Subnet.String() + " -m addrtype ! --dst-type MULTICAST "
	if len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.HasSuffix(got[0], "-j MASQUERADE") {
		t.Fatalf("masquerade rules = %q, want one starting %q", got, want)
	}
	for _, p := range []*pod{p1, p2} {
		if rules := natRulesOf(t, cfg.Name, p.id); len(rules) != 0 {
			t.Errorf("nat rules of pod %s: %q, want none (no per-pod chain)", p.id, rules)
		}
	}
	// Another Bridge value of the same network (another process, say) finds the rule there.
	again, err := NewBridge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	attach(t, again)
	if got := masqueradeRules(t, cfg.Name); len(got) != 1 {
		t.Errorf("masquerade rules after a second Bridge's Setup = %q, want one", got)
	}
}

// Without masquerading, no rule.
func TestNoIPMasqAddsNoRule(t *testing.T) {
	b := newTestBridge(t, false)
	attach(t, b)
	if got := masqueradeRules(t, b.Config().Name); len(got) != 0 {
		t.Errorf("masquerade rules with NoIPMasq = %q", got)
	}
}

// Without iptables a masquerading Bridge's Setup fails, as the bridge plugin's ipMasq did,
// and leaves nothing behind (newTestBridge's cleanup checks).
func TestMasqueradeWithoutIPTablesFails(t *testing.T) {
	b := newTestBridge(t, true)
	netns := newNetNS(t)
	t.Setenv("PATH", t.TempDir()) // restored before the Bridge's cleanup runs
	_, err := b.Setup(context.Background(), "pod-noipt", netns)
	if err == nil || !strings.Contains(err.Error(), "masquerade the pods' traffic") {
		t.Fatalf("Setup without iptables: %v, want the masquerade's error", err)
	}
}
