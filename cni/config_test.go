package cni

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePluginDir makes a directory holding (empty, executable) binaries for
// the given plugin types.
func fakePluginDir(t *testing.T, types ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, typ := range types {
		if err := os.WriteFile(filepath.Join(dir, typ), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestNewBridgeRejectsBadConfig(t *testing.T) {
	plugins := fakePluginDir(t, bridgePluginTypes()...)
	valid := func() BridgeConfig {
		return BridgeConfig{StateDir: t.TempDir(), PluginDirs: []string{plugins}}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*BridgeConfig)
		want   string // substring of the error, naming the field
	}{
		{"missing state dir", func(c *BridgeConfig) { c.StateDir = "" }, "BridgeConfig.StateDir"},
		{"bad network name", func(c *BridgeConfig) { c.Name = "no/slashes" }, "BridgeConfig.Name"},
		{"long bridge name", func(c *BridgeConfig) { c.Bridge = "a-bridge-name-of-16" }, "BridgeConfig.Bridge"},
		{"bridge name with colon", func(c *BridgeConfig) { c.Bridge = "br:0" }, "BridgeConfig.Bridge"},
		{"subnet with host bits", func(c *BridgeConfig) { c.Subnet = netip.MustParsePrefix("10.88.0.1/16") }, "BridgeConfig.Subnet"},
		{"subnet too small", func(c *BridgeConfig) { c.Subnet = netip.MustParsePrefix("10.88.0.0/31") }, "BridgeConfig.Subnet"},
		{"mtu out of range", func(c *BridgeConfig) { c.MTU = 20 }, "BridgeConfig.MTU"},
		{"missing plugin dir", func(c *BridgeConfig) { c.PluginDirs = []string{"/nonexistent/cni"} }, "BridgeConfig.PluginDirs: plugin dir /nonexistent/cni"},
		{"missing plugin", func(c *BridgeConfig) { c.PluginDirs = []string{fakePluginDir(t, "bridge", "host-local")} }, `plugin "portmap" not found in [`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := valid()
			tc.mutate(&cfg)
			b, err := NewBridge(cfg)
			if err == nil {
				t.Fatalf("NewBridge accepted %+v", cfg)
			}
			if b != nil {
				t.Error("non-nil Bridge with error")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if cfg.StateDir != "" {
				if _, err := os.Stat(filepath.Join(cfg.StateDir, "net.d")); err == nil {
					t.Error("conflist written for a bad config")
				}
			}
		})
	}
}

func TestNewBridgeDefaultsAndConfList(t *testing.T) {
	plugins := fakePluginDir(t, bridgePluginTypes()...)
	stateDir := t.TempDir()
	b, err := NewBridge(BridgeConfig{StateDir: stateDir, PluginDirs: []string{plugins}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := b.Config()
	if cfg.Name != "podlife" || cfg.Bridge != "podlife0" || cfg.Subnet.String() != "10.88.0.0/16" || cfg.NoIPMasq {
		t.Errorf("defaults: %+v", cfg)
	}
	onDisk, err := os.ReadFile(filepath.Join(stateDir, "net.d", "podlife.conflist"))
	if err != nil {
		t.Fatal(err)
	}
	if string(onDisk) != string(b.ConfList()) {
		t.Error("conflist on disk differs from ConfList()")
	}
	for _, want := range []string{
		`"cniVersion": "1.0.0"`, `"type": "bridge"`, `"bridge": "podlife0"`,
		`"isGateway": true`, `"ipMasq": false`, `"hairpinMode": true`,
		`"type": "host-local"`, `"subnet": "10.88.0.0/16"`, `"dst": "0.0.0.0/0"`,
		`"dataDir": "` + filepath.Join(stateDir, "ipam") + `"`,
		`"type": "portmap"`, `"portMappings": true`, `"snat": true`,
	} {
		if !strings.Contains(string(onDisk), want) {
			t.Errorf("conflist lacks %s:\n%s", want, onDisk)
		}
	}
	// Config returns a copy.
	cfg.PluginDirs[0] = "changed"
	if b.Config().PluginDirs[0] != plugins {
		t.Error("Config exposes internal slice")
	}
}
