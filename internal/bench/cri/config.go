package cri

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// runcStateRoot is where containerd's runc shim keeps runc's state, one directory per
// containerd namespace, whatever the daemon's state dir.
const runcStateRoot = "/run/containerd/runc"

// criNetwork is the CRI containerd's CNI network: the conflist podlife's cni.Bridge writes
// (bridge with gateway, masquerade and hairpin, host-local with a default route, portmap), with
// its own name, bridge, subnet and IPAM dir.
type criNetwork struct {
	name, bridge, subnet string
	confDir, ipamDir     string
	binDirs              []string
}

func newCRINetwork(e *measure.Env, dir string) criNetwork {
	id := e.RunID
	if len(id) > 9 {
		id = id[len(id)-9:]
	}
	return criNetwork{name: "plb-cri-" + e.RunID, bridge: "plc" + id, subnet: "10.249.0.0/16",
		confDir: filepath.Join(dir, "net.d"), ipamDir: filepath.Join(dir, "ipam"), binDirs: cnipath.Dirs("")}
}

func (n criNetwork) writeConfList() error {
	list := map[string]any{
		"cniVersion": "1.0.0",
		"name":       n.name,
		"plugins": []any{
			map[string]any{"type": "bridge", "bridge": n.bridge, "isGateway": true, "ipMasq": true, "hairpinMode": true,
				"ipam": map[string]any{"type": "host-local", "ranges": [][]map[string]string{{{"subnet": n.subnet}}},
					"routes": []map[string]string{{"dst": "0.0.0.0/0"}}, "dataDir": n.ipamDir}},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}, "snat": true},
		},
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(n.confDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(n.confDir, "10-"+n.name+".conflist"), b, 0o644)
}

// destroy reports what the CRI pods left (veths, iptables rules, IPAM leases, CNI cache
// entries) and removes the bridge, which the bridge plugin creates and never deletes.
func (n criNetwork) destroy() error {
	leaks, err := podlifetest.HostLeaks("", n.bridge, n.name, n.ipamDir)
	errs := []error{err}
	for _, l := range leaks {
		errs = append(errs, errors.New("leak: "+l))
	}
	// libcni's default cache dir, which the CRI plugin uses: one result per attachment.
	cached, _ := filepath.Glob(filepath.Join("/var/lib/cni/results", n.name+"-*"))
	for _, c := range cached {
		errs = append(errs, fmt.Errorf("leak: CNI cache entry %s", c))
		_ = os.Remove(c)
	}
	if _, err := os.Stat(filepath.Join("/sys/class/net", n.bridge)); err == nil {
		if out, err := exec.Command("ip", "link", "delete", n.bridge).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("delete bridge %s: %w: %s", n.bridge, err, out))
		}
	}
	return errors.Join(errs...)
}

// criConfig renders the CRI containerd's config (version 3, containerd 2.x): its own root,
// state and socket, the CRI plugin on with the defaults the kubelet's nodes run (runc through
// io.containerd.runc.v2, cgroupfs, overlayfs), and the bench's network and sandbox image.
// Netns files go under the state dir, and neither TCP nor a fixed streaming port is opened.
func criConfig(dir, socket string, n criNetwork) string {
	q := strconv.Quote
	var bins []string
	for _, b := range n.binDirs {
		bins = append(bins, q(b))
	}
	return strings.Join([]string{
		"version = 3",
		"root = " + q(filepath.Join(dir, "root")),
		"state = " + q(filepath.Join(dir, "state")),
		// As podlife/daemon's private daemons: no snapshotter that probes the host, no
		// tracing, no NRI socket, nothing under /opt.
		`disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",` +
			` "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.blockfile",` +
			` "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing", "io.containerd.nri.v1.nri",` +
			` "io.containerd.internal.v1.opt", "io.containerd.image-verifier.v1.bindir"]`,
		"[grpc]",
		"  address = " + q(socket),
		"[ttrpc]",
		"  address = " + q(socket+".ttrpc"),
		"[plugins.'io.containerd.cri.v1.images']",
		"  snapshotter = 'overlayfs'",
		"  [plugins.'io.containerd.cri.v1.images'.pinned_images]",
		"    sandbox = " + q(pauseImage),
		"[plugins.'io.containerd.cri.v1.runtime']",
		"  netns_mounts_under_state_dir = true",
		// Without CAP_SYS_RESOURCE (this VM), the sandbox's oom_score_adj -998 fails runc
		// create: cap every score at containerd's own, as on a rootless node.
		"  restrict_oom_score_adj = true",
		"  enable_cdi = false",
		"  [plugins.'io.containerd.cri.v1.runtime'.containerd]",
		"    default_runtime_name = 'runc'",
		"    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]",
		"      runtime_type = 'io.containerd.runc.v2'",
		"  [plugins.'io.containerd.cri.v1.runtime'.cni]",
		"    bin_dirs = [" + strings.Join(bins, ", ") + "]",
		"    conf_dir = " + q(n.confDir),
		"    max_conf_num = 1",
		"[plugins.'io.containerd.grpc.v1.cri']",
		"  disable_tcp_service = true",
		"  stream_server_address = '127.0.0.1'",
		"  stream_server_port = '0'",
		"",
	}, "\n")
}

// removeCgroupTree removes cgroup dir (absolute in each hierarchy, "/plb-cri-1") and the
// empty cgroups under it, deepest first, in every hierarchy; a missing one is fine.
func removeCgroupTree(dir string) error {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*")
	roots = append(roots, "/sys/fs/cgroup")
	var errs []error
	for _, r := range roots {
		if fi, err := os.Lstat(r); err != nil || !fi.IsDir() {
			continue // co-mounted controllers' symlinks
		}
		top := filepath.Join(r, dir)
		var dirs []string
		_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
