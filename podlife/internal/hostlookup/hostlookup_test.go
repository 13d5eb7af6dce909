package hostlookup

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The Config's settings win: configured IPs are returned as they are, a configured pause
// binary is used if it exists and is an ErrNoPauseBinary error if not.
func TestConfiguredWins(t *testing.T) {
	ips := []netip.Addr{netip.MustParseAddr("192.0.2.7")}
	if got, err := HostIPs(ips); err != nil || !slices.Equal(got, ips) {
		t.Errorf("HostIPs(%v) = %v, %v", ips, got, err)
	}
	bin := filepath.Join(t.TempDir(), "pause")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := PauseBinary(bin); err != nil || got != bin {
		t.Errorf("PauseBinary(%q) = %q, %v", bin, got, err)
	}
	if _, err := PauseBinary(bin + ".missing"); !errors.Is(err, ErrNoPauseBinary) {
		t.Errorf("PauseBinary of a missing file: %v, want ErrNoPauseBinary", err)
	}
	if _, err := SeccompProfile("", "p.json"); err == nil {
		t.Error("SeccompProfile without a root: no error")
	}
}
