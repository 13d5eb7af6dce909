package daemon

import (
	"strings"
	"testing"
)

func TestTOMLString(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/plt-1":  `"/tmp/plt-1"`,
		`a"b\c`:       `"a\"b\\c"`,
		"tab\there\n": `"tab\u0009here\u000A"`,
		"ünïcode":     `"ünïcode"`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestRenderConfig(t *testing.T) {
	cfg := renderConfig(newPaths("/tmp/plt-1"))
	for _, want := range []string{
		"version = 2\n",
		`root = "/tmp/plt-1/root"`,
		`state = "/tmp/plt-1/state"`,
		`address = "/tmp/plt-1/containerd.sock"`,
		`address = "/tmp/plt-1/containerd.sock.ttrpc"`,
		`"io.containerd.grpc.v1.cri",`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, "io.containerd.runtime.v1.linux") {
		t.Error("config disables the legacy runtime 1.6's tasks service needs")
	}
}
