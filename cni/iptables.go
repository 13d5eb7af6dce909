package cni

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ipTool is the iptables-save/iptables-restore pair of one IP family.
type ipTool struct {
	save, restore string
	// optional tools failing to read a table is taken to mean that the
	// table is unusable (IPv6 disabled, say), so no plugin has rules there.
	optional bool
}

// ipTools returns the tools of both IP families.
func ipTools() []ipTool {
	return []ipTool{
		{save: "iptables-save", restore: "iptables-restore"},
		{save: "ip6tables-save", restore: "ip6tables-restore", optional: true},
	}
}

// dump reads one table. It returns nil, without error, when the tools are
// not installed (or, if optional, cannot read the table): then no plugin
// can have added rules either.
func (t ipTool) dump(ctx context.Context, table string) (*ruleTable, error) {
	path, err := exec.LookPath(t.save)
	if errors.Is(err, exec.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.save, err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "-t", table)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && t.optional && ctx.Err() == nil {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s -t %s: %w: %s", t.save, table, err, strings.TrimSpace(stderr.String()))
	}
	return parseRuleTable(table, string(out)), nil
}

// apply feeds an iptables-restore payload to the tool, leaving every rule
// the payload does not mention alone. An empty payload is a no-op.
func (t ipTool) apply(ctx context.Context, payload string) error {
	if payload == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, t.restore, "--noflush", "--wait")
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", t.restore, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// sweepOwned deletes, in the nat table of both IP families, the rules the
// bridge and portmap plugins tagged for pod id on network (any pod if id is
// empty), and the per-pod chains only those rules jump to.
//
// It repairs what plugins leave behind on a degraded DEL: bridge 1.1.1
// finds the addresses to un-masquerade in the pod's netns, so a DEL after
// the netns is gone leaks its ipMasq chain, and portmap removes nothing when
// the port mappings are unknown because the CNI cache is gone.
func sweepOwned(ctx context.Context, network, id string) error {
	var errs []error
	for _, tool := range ipTools() {
		t, err := tool.dump(ctx, "nat")
		if err != nil || t == nil {
			errs = append(errs, err)
			continue
		}
		payload := t.removal(func(r rule) bool { return ownedBy(r.comment, network, id) })
		errs = append(errs, tool.apply(ctx, payload))
	}
	return errors.Join(errs...)
}
