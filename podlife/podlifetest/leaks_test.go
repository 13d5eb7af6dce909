//go:build linux

package podlifetest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/podlifetest"
)

func TestHostLeaksAndRemoveAll(t *testing.T) {
	requireRoot(t)
	requireBinary(t, "iptables-save")
	dir, err := os.MkdirTemp("", "plt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = podlifetest.RemoveAll(dir) })

	state := filepath.Join(dir, "state with space")
	nested := filepath.Join(state, "a")
	ipam := filepath.Join(dir, "ipam", "plt-net")
	for _, d := range []string{nested, ipam} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mount("tmpfs", state, "tmpfs", 0, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", nested, "tmpfs", 0, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lock", "last_reserved_ip.0", "10.88.0.7"} {
		if err := os.WriteFile(filepath.Join(ipam, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	leaks, err := podlifetest.HostLeaks(dir, "plt-nobridge0", "plt-no-such-net-7f3a", filepath.Dir(ipam))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`tmpfs mount "` + nested + `"`,
		`tmpfs mount "` + state + `"`,
		`IPAM file "` + filepath.Join(ipam, "10.88.0.7") + `"`,
	}
	if !slices.Equal(leaks, want) {
		t.Errorf("HostLeaks =\n\t%s\nwant\n\t%s", strings.Join(leaks, "\n\t"), strings.Join(want, "\n\t"))
	}

	if err := podlifetest.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left: %v", dir, err)
	}
	leaks, err = podlifetest.HostLeaks(dir, "", "", dir)
	assertNoLeaks(t, leaks, err)
}

// A network's localnet guard lives as long as the network, not a pod: HostLeaks does not report
// it, but does report any other rule naming the network.
func TestHostLeaksSkipsTheLocalnetGuard(t *testing.T) {
	requireRoot(t)
	requireBinary(t, "iptables")
	network := fmt.Sprintf("plt-guard-%d", os.Getpid())
	// The rules match an interface that does not exist, so they never see a packet.
	rules := [][]string{
		{"-i", "pltgone0", "-d", "127.0.0.0/8", "-m", "comment", "--comment", cni.LocalnetGuardComment(network), "-j", "DROP"},
		{"-i", "pltgone0", "-d", "127.0.0.0/8", "-m", "comment", "--comment", fmt.Sprintf("name: %q id: \"p\"", network), "-j", "DROP"},
	}
	for _, r := range rules {
		if out, err := exec.Command("iptables", append([]string{"-w", "-A", "INPUT"}, r...)...).CombinedOutput(); err != nil {
			t.Fatalf("iptables -A: %v: %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("iptables", append([]string{"-w", "-D", "INPUT"}, r...)...).Run() })
	}
	leaks, err := podlifetest.HostLeaks("", "", network, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(leaks) != 1 || strings.Contains(leaks[0], "localnet-guard") {
		t.Errorf("HostLeaks = %q, want only the pod's rule", leaks)
	}
}
