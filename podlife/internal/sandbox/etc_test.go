package sandbox_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// The /etc files of a pod with its own network: the hostname, the DNS config rendered as
// resolv.conf, and a managed hosts file with the pod's IP and aliases once it has an IP.
func TestWriteEtc(t *testing.T) {
	dir := t.TempDir()
	spec := &api.PodSpec{
		DNS:         &api.DNSConfig{Nameservers: []string{"10.0.0.10"}, Searches: []string{"a.local", "b.local"}, Options: []string{"ndots:2"}},
		HostAliases: []api.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"db", "db.local"}}},
	}
	if err := sandbox.WriteEtc(dir, spec, "web", netip.Addr{}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("hostname"); got != "web\n" {
		t.Errorf("hostname: %q", got)
	}
	if got, want := read("resolv.conf"), "nameserver 10.0.0.10\nsearch a.local b.local\noptions ndots:2\n"; got != want {
		t.Errorf("resolv.conf: %q, want %q", got, want)
	}
	hosts := read("hosts")
	if !strings.HasPrefix(hosts, "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n") || strings.Contains(hosts, "\tweb\n") {
		t.Errorf("hosts before the pod has an IP:\n%s", hosts)
	}
	if !strings.HasSuffix(hosts, "10.1.2.3\tdb\tdb.local\n") {
		t.Errorf("hosts without the alias line last:\n%s", hosts)
	}
	if err := sandbox.WriteHosts(dir, spec, "web", netip.MustParseAddr("10.88.0.5")); err != nil {
		t.Fatal(err)
	}
	if hosts := read("hosts"); !strings.Contains(hosts, "10.88.0.5\tweb\n\n# Entries added by HostAliases.\n10.1.2.3\tdb\tdb.local\n") {
		t.Errorf("hosts with the pod's IP:\n%s", hosts)
	}
}

// A hostPath's type is checked against what is there; the OrCreate types create it.
func TestCheckHostPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h  api.HostPathVolume
		ok bool
	}{
		{api.HostPathVolume{Path: dir, Type: api.HostPathDirectory}, true},
		{api.HostPathVolume{Path: file, Type: api.HostPathDirectory}, false},
		{api.HostPathVolume{Path: file, Type: api.HostPathFile}, true},
		{api.HostPathVolume{Path: dir, Type: api.HostPathFile}, false},
		{api.HostPathVolume{Path: filepath.Join(dir, "missing"), Type: api.HostPathDirectory}, false},
		{api.HostPathVolume{Path: filepath.Join(dir, "missing"), Type: api.HostPathUnset}, true},
		{api.HostPathVolume{Path: filepath.Join(dir, "new", "d"), Type: api.HostPathDirectoryOrCreate}, true},
		{api.HostPathVolume{Path: filepath.Join(dir, "new", "f"), Type: api.HostPathFileOrCreate}, true},
	} {
		if err := sandbox.CheckHostPath(&c.h); (err == nil) != c.ok {
			t.Errorf("%s %s: %v, want ok=%v", c.h.Type, c.h.Path, err, c.ok)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "new", "f")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("FileOrCreate did not create a file: %v", err)
	}
}
