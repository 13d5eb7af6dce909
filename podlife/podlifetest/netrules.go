package podlifetest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/podlife/podlife/cni"
)

// RemoveNetworkRules deletes the iptables rules that a cni.Bridge keeps for as long as its
// network exists, for the networks whose conflists (net.d/<network>.conflist) lie under dir:
// the masquerade rule of the network's subnet (cni.MasqueradeComment) and its localnet guard
// (cni.LocalnetGuardComment). A test whose programs make Bridges they never destroy (the
// podlife CLI's, say) calls it when done, so that test runs do not pile rules up on the host.
// Without iptables it does nothing.
func RemoveNetworkRules(dir string) error {
	var networks []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(path)) == "net.d" && strings.HasSuffix(path, ".conflist") {
			networks = append(networks, strings.TrimSuffix(filepath.Base(path), ".conflist"))
		}
		return nil
	})
	if len(networks) == 0 {
		return nil
	}
	if _, err := exec.LookPath("iptables-save"); err != nil {
		return nil
	}
	for _, table := range []string{"nat", "filter"} {
		out, err := exec.Command("iptables-save", "-t", table).Output()
		if err != nil {
			return fmt.Errorf("podlifetest: iptables-save -t %s: %w", table, err)
		}
		var payload bytes.Buffer
		for line := range strings.Lines(string(out)) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "-A ") {
				continue
			}
			for _, n := range networks {
				if strings.Contains(line, strconv.Quote(cni.MasqueradeComment(n))) || strings.Contains(line, strconv.Quote(cni.LocalnetGuardComment(n))) {
					payload.WriteString("-D " + strings.TrimPrefix(line, "-A ") + "\n")
					break
				}
			}
		}
		if payload.Len() == 0 {
			continue
		}
		cmd := exec.Command("iptables-restore", "--noflush", "--wait")
		cmd.Stdin = strings.NewReader("*" + table + "\n" + payload.String() + "COMMIT\n")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("podlifetest: iptables-restore: %w: %s", err, b)
		}
	}
	return nil
}
