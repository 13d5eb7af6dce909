package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Only scoped counters that grew (or failed: -1) fail the soak; host-wide ones are information.
func TestGrown(t *testing.T) {
	cs := []counter{{name: "a", scoped: true}, {name: "b", scoped: true}, {name: "host", scoped: false}, {name: "c", scoped: true}}
	got := grown(cs, []int{3, 3, 3, 0}, []int{3, 2, 9, -1})
	if want := []string{"c"}; !slices.Equal(got, want) {
		t.Errorf("grown %q, want %q (b shrank, host is not scoped, c failed)", got, want)
	}
	if got := grown(cs, []int{1, 1, 1, 1}, []int{2, 1, 1, 1}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("grown %q, want [a]", got)
	}
}

// host-local keeps one file per reserved address, beside last_reserved_ip.* and lock, which do
// not count; a missing directory counts 0.
func TestCountIPAM(t *testing.T) {
	dir := t.TempDir()
	net := filepath.Join(dir, "podlife-soak-1")
	if err := os.MkdirAll(net, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"10.252.0.2", "10.252.0.3", "last_reserved_ip.0", "lock"} {
		if err := os.WriteFile(filepath.Join(net, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := countIPAM(dir); err != nil || n != 2 {
		t.Errorf("countIPAM = %d, %v; want 2", n, err)
	}
	if n, err := countIPAM(filepath.Join(dir, "nosuch")); err != nil || n != 0 {
		t.Errorf("countIPAM of a missing dir = %d, %v; want 0", n, err)
	}
}

// A shim is this run's when its -namespace argument is the run's namespace.
func TestHasArg(t *testing.T) {
	argv := []string{"/usr/bin/containerd-shim-runc-v2", "-namespace", "pls-1", "-id", "x", "-address", "/run/c.sock"}
	if !hasArg(argv, "-namespace", "pls-1") || hasArg(argv, "-namespace", "pls-2") || hasArg(argv, "-address", "pls-1") {
		t.Error("hasArg does not match a flag and its value")
	}
}

// The process's own fds and goroutines are counted, and a count failure shows as -1.
func TestSnapshot(t *testing.T) {
	cs := []counter{
		{name: "fds", scoped: true, count: func(context.Context) (int, error) { return countDir("/proc/self/fd") }},
		{name: "broken", scoped: true, count: func(context.Context) (int, error) { return countDir(filepath.Join(t.TempDir(), "nosuch")) }},
	}
	got, errs := snapshot(context.Background(), cs)
	if got[0] <= 0 || got[1] != -1 || len(errs) != 1 {
		t.Errorf("snapshot %v, errors %v; want fds > 0, broken -1 with one error", got, errs)
	}
}
