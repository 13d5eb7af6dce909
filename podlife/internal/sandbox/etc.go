package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// WriteEtc writes the pod's /etc/hostname, /etc/resolv.conf and /etc/hosts in etcDir (the
// host's hosts file with host networking, else the file WriteHosts writes).
func WriteEtc(etcDir string, spec *api.PodSpec, hostname string, ip netip.Addr) error {
	if err := os.WriteFile(filepath.Join(etcDir, "hostname"), []byte(hostname+"\n"), 0o644); err != nil {
		return err
	}
	resolv, err := resolvConf(spec.DNS)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(etcDir, "resolv.conf"), resolv, 0o644); err != nil {
		return err
	}
	if spec.HostNetwork {
		hosts, err := os.ReadFile("/etc/hosts")
		if err != nil {
			return err
		}
		// As the kubelet's (nodeHostsFileContent): the host's file, then the pod's hostAliases.
		b := bytes.NewBufferString("# Kubernetes-managed hosts file (host network).\n")
		b.Write(hosts)
		b.WriteString(hostAliasLines(spec.HostAliases))
		return os.WriteFile(filepath.Join(etcDir, "hosts"), b.Bytes(), 0o644)
	}
	return WriteHosts(etcDir, spec, hostname, ip)
}

// WriteHosts writes the pod's /etc/hosts in etcDir as the kubelet's managed file
// (managedHostsFileContent), its header included ("# Kubernetes-managed hosts file.", which the
// node conformance suite checks): the pod's IP (if valid) under its hostname, then the spec's
// host aliases. It writes in place: containers bind-mount the file.
func WriteHosts(etcDir string, spec *api.PodSpec, hostname string, ip netip.Addr) error {
	var b bytes.Buffer
	b.WriteString("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
	if ip.IsValid() {
		fmt.Fprintf(&b, "%s\t%s\n", ip, hostname)
	}
	b.WriteString(hostAliasLines(spec.HostAliases))
	return os.WriteFile(filepath.Join(etcDir, "hosts"), b.Bytes(), 0o644)
}

// hostAliasLines are the hostAliases' lines of /etc/hosts, as the kubelet writes them
// (hostsEntriesFromHostAliases): a blank line and a comment, then one line an IP.
func hostAliasLines(aliases []api.HostAlias) string {
	if len(aliases) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n# Entries added by HostAliases.\n")
	for _, a := range aliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
	return b.String()
}

// resolvConf renders the pod's /etc/resolv.conf: the host's with no DNS config (none if the
// host has none).
func resolvConf(d *api.DNSConfig) ([]byte, error) {
	if d == nil {
		b, err := os.ReadFile("/etc/resolv.conf")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return b, err
	}
	var b bytes.Buffer
	for _, ns := range d.Nameservers {
		fmt.Fprintf(&b, "nameserver %s\n", ns)
	}
	if len(d.Searches) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(d.Searches, " "))
	}
	if len(d.Options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(d.Options, " "))
	}
	return b.Bytes(), nil
}
