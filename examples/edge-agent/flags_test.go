package main

import (
	"io"
	"slices"
	"testing"
)

// The agent enforces the baseline Pod Security Standard unless told otherwise.
func TestPodSecurityFlags(t *testing.T) {
	o, err := parseFlags([]string{"--manifests", "/m"}, io.Discard)
	if err != nil || o.podSecurity != "baseline" || o.allowedCapabilities != nil {
		t.Errorf("defaults: %+v, %v; want --pod-security baseline", o, err)
	}
	o, err = parseFlags([]string{"--manifests", "/m", "--pod-security", "restricted", "--allowed-capabilities", "NET_ADMIN, SYS_TIME", "--allowed-capabilities", "BPF"}, io.Discard)
	if err != nil || o.podSecurity != "restricted" || !slices.Equal(o.allowedCapabilities, []string{"NET_ADMIN", "SYS_TIME", "BPF"}) {
		t.Errorf("flags: %+v, %v", o, err)
	}
}
