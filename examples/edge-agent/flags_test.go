package main

import (
	"io"
	"slices"
	"testing"

	"github.com/podlife/podlife/podlife/daemon"
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

// --private-containerd takes its default from PODLIFE_PRIVATE_CONTAINERD and excludes --address.
func TestPrivateContainerdFlag(t *testing.T) {
	t.Setenv(daemon.PrivateEnv, "")
	if o, err := parseFlags([]string{"--manifests", "/m"}, io.Discard); err != nil || o.privateContainerd {
		t.Errorf("default: %v, %v; want the system containerd first", o.privateContainerd, err)
	}
	t.Setenv(daemon.PrivateEnv, "1")
	if o, err := parseFlags([]string{"--manifests", "/m"}, io.Discard); err != nil || !o.privateContainerd {
		t.Errorf("%s=1: %v, %v; want the private containerd", daemon.PrivateEnv, o.privateContainerd, err)
	}
	if _, err := parseFlags([]string{"--manifests", "/m", "--address", "/run/x.sock"}, io.Discard); err == nil {
		t.Error("--address with --private-containerd (from the environment) accepted")
	}
	if o, err := parseFlags([]string{"--manifests", "/m", "--private-containerd=false", "--address", "/run/x.sock"}, io.Discard); err != nil || o.address != "/run/x.sock" {
		t.Errorf("--private-containerd=false --address: %+v, %v", o, err)
	}
}
