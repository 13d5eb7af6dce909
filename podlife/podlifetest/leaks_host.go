package podlifetest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/podlife/podlife/cni"
)

// HostLeaks lists what is left on the host, each item a human-readable
// line:
//   - mounts at or below stateDir, from /proc/self/mountinfo;
//   - links attached to the bridge named bridge (the veths of pods), if
//     bridge is not empty;
//   - rules in iptables-save's filter and nat tables that mention netName
//     (CNI comments rules with the network name), if netName is not empty,
//     except the network's own localnet guard (cni.LocalnetGuardComment)
//     and masquerade rule (cni.MasqueradeComment), which stay until the
//     network is destroyed;
//   - files under ipamDir other than the "lock" and "last_reserved_ip.*"
//     files host-local keeps, that is reserved addresses, if ipamDir is not
//     empty.
//
// Missing bridges and directories count as nothing left. No items means
// no leaks.
func HostLeaks(stateDir, bridge, netName, ipamDir string) ([]string, error) {
	var leaks []string
	if stateDir != "" {
		mounts, err := mountsUnder(stateDir)
		if err != nil {
			return nil, fmt.Errorf("podlifetest: list mounts: %w", err)
		}
		for _, m := range mounts {
			leaks = append(leaks, fmt.Sprintf("%s mount %q", m.fstype, m.point))
		}
	}
	if bridge != "" {
		links, err := bridgeLeaks(bridge)
		if err != nil {
			return nil, err
		}
		leaks = append(leaks, links...)
	}
	if netName != "" {
		rules, err := iptablesLeaks(netName)
		if err != nil {
			return nil, err
		}
		leaks = append(leaks, rules...)
	}
	if ipamDir != "" {
		files, err := ipamLeaks(ipamDir)
		if err != nil {
			return nil, err
		}
		leaks = append(leaks, files...)
	}
	return leaks, nil
}

// bridgeLeaks lists the ports of a bridge, from sysfs.
func bridgeLeaks(bridge string) ([]string, error) {
	ports, err := os.ReadDir(filepath.Join("/sys/class/net", bridge, "brif"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("podlifetest: list ports of bridge %s: %w", bridge, err)
	}
	var leaks []string
	for _, p := range ports {
		leaks = append(leaks, fmt.Sprintf("link %q on bridge %q", p.Name(), bridge))
	}
	return leaks, nil
}

// iptablesLeaks lists filter and nat rules that mention netName.
func iptablesLeaks(netName string) ([]string, error) {
	var leaks []string
	guard := strconv.Quote(cni.LocalnetGuardComment(netName))
	masq := strconv.Quote(cni.MasqueradeComment(netName))
	for _, table := range []string{"filter", "nat"} {
		var stderr bytes.Buffer
		cmd := exec.Command("iptables-save", "-t", table)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("podlifetest: iptables-save -t %s: %w: %s", table, err, strings.TrimSpace(stderr.String()))
		}
		for line := range strings.Lines(string(out)) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "#") && strings.Contains(line, netName) && !strings.Contains(line, guard) && !strings.Contains(line, masq) {
				leaks = append(leaks, fmt.Sprintf("iptables %s rule %q", table, line))
			}
		}
	}
	return leaks, nil
}

// ipamLeaks lists reserved addresses host-local left under dir.
func ipamLeaks(dir string) ([]string, error) {
	var leaks []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if name == "lock" || strings.HasPrefix(name, "last_reserved_ip") {
			return nil
		}
		leaks = append(leaks, fmt.Sprintf("IPAM file %q", path))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("podlifetest: walk %s: %w", dir, err)
	}
	return leaks, nil
}
