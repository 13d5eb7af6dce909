package cri

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
)

func TestCRINetworkNames(t *testing.T) {
	e := &measure.Env{RunID: "1234567890123"}
	n := newCRINetwork(e, t.TempDir())
	if len(n.bridge) > 15 {
		t.Errorf("bridge name %q is longer than a link name may be (15)", n.bridge)
	}
	if err := n.writeConfList(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(n.confDir, "10-"+n.name+".conflist"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Name    string `json:"name"`
		Plugins []struct {
			Type   string `json:"type"`
			Bridge string `json:"bridge"`
			IPAM   struct {
				DataDir string `json:"dataDir"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if list.Name != n.name || len(list.Plugins) != 2 || list.Plugins[0].Type != "bridge" || list.Plugins[1].Type != "portmap" ||
		list.Plugins[0].Bridge != n.bridge || list.Plugins[0].IPAM.DataDir != n.ipamDir {
		t.Errorf("conflist:\n%s", b)
	}
}

func TestCRIConfig(t *testing.T) {
	n := criNetwork{name: "net", bridge: "br", subnet: "10.249.0.0/16", confDir: "/d/net.d", ipamDir: "/d/ipam", binDirs: []string{"/a", "/b"}}
	cfg := criConfig("/d", "/d/c.sock", n)
	for _, want := range []string{
		"version = 3\n", `root = "/d/root"`, `address = "/d/c.sock"`, `address = "/d/c.sock.ttrpc"`,
		`sandbox = "` + pauseImage + `"`, "netns_mounts_under_state_dir = true", "restrict_oom_score_adj = true",
		`bin_dirs = ["/a", "/b"]`, `conf_dir = "/d/net.d"`, "disable_tcp_service = true",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	for line := range strings.Lines(cfg) {
		if strings.HasPrefix(line, "disabled_plugins") && strings.Contains(line, "cri") {
			t.Errorf("config disables a CRI plugin: %s", line)
		}
	}
}

// TestAtOnceRunsAllTogether: every call starts before any returns (each waits for all).
func TestAtOnceRunsAllTogether(t *testing.T) {
	const k = 20
	var started sync.WaitGroup
	started.Add(k)
	all, each, err := atOnce(k, func(int) error {
		started.Done()
		started.Wait()
		return nil
	})
	if err != nil || len(each) != k || all <= 0 {
		t.Fatalf("atOnce: %v, %d times, %v", err, len(each), all)
	}
	for i, d := range each {
		if d > all {
			t.Errorf("call %d took %v, longer than all (%v)", i, d, all)
		}
	}
}

func TestBuildPauseIsStatic(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc: the bench falls back to catatonit")
	}
	p, err := buildPause(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pause")
	if err := os.WriteFile(path, p.data, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Fatal("pause is dynamically linked; the image holds no libc")
		}
	}
	// It exits 0 on SIGTERM, as the kubelet's pause does, once its handler is in place
	// (SigCgt in /proc/PID/status holds SIGTERM's bit, 1<<14).
	cmd := exec.Command(path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !catches(cmd.Process.Pid, 1<<14) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("pause installs no SIGTERM handler")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("pause on SIGTERM: %v (want exit 0)", err)
	}
}

// catches reports whether process pid has a handler for every signal in mask.
func catches(pid int, mask uint64) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && n&mask == mask
		}
	}
	return false
}

// Ceiling: the CRI phase's machine CPU over podlife's less podlife's own process; not
// computed without podlife's own figure.
func TestManyCeiling(t *testing.T) {
	m := &manyReport{Pods: 50, Podlife: manyRun{MachineCPUMs: 14000, ManagerOwnCPUMs: 2000}, CRI: manyRun{MachineCPUMs: 21000}}
	ratio, rest, ok := m.Ceiling()
	if !ok || ratio != 1.75 || rest != 240 {
		t.Errorf("Ceiling() = %v, %v, %v; want 1.75, 240, true", ratio, rest, ok)
	}
	m.Podlife.ManagerOwnCPUMs = 0
	if _, _, ok := m.Ceiling(); ok {
		t.Error("Ceiling without podlife's own CPU: ok")
	}
}
