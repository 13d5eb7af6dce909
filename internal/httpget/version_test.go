package httpget

import (
	"strings"
	"testing"
)

func TestMajorMinor(t *testing.T) {
	for in, want := range map[string]string{
		"v1.34.2": "1.34", "v0.3.0-rc.1": "0.3", "v0.0.0-20260101000000-abcdef123456": "0.0",
		"(devel)": "dev", "": "dev", "v2": "dev", "v.1.2": "dev", "1.2.3": "dev",
	} {
		if got := majorMinor(in); got != want {
			t.Errorf("majorMinor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUserAgent(t *testing.T) {
	v := Version()
	if v != "dev" && strings.Count(v, ".") != 1 {
		t.Errorf("Version() = %q, want dev or <major>.<minor>", v)
	}
	if got, want := UserAgent("podlife-probe"), "podlife-probe/"+v; got != want {
		t.Errorf("UserAgent = %q, want %q", got, want)
	}
}
