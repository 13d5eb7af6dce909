package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/containerd/v2/defaults"
	"github.com/containerd/containerd/v2/pkg/namespaces"
)

// counter is one row of the table: a resource the soak must not leak. A scoped counter counts
// only this run's objects (its namespace, bridge, directories) and fails the soak if it grew; a
// host-wide one (scoped false) is shown for information, since other programs on the host
// change it meanwhile.
type counter struct {
	name   string
	scoped bool
	count  func(ctx context.Context) (int, error)
}

// counters are what the soak compares before and after its cycles.
func (e *env) counters() []counter {
	ns := e.ns
	nsCtx := func(ctx context.Context) context.Context { return namespaces.WithNamespace(ctx, ns) }
	return []counter{
		{"netns pinned (state dir)", true, func(context.Context) (int, error) { return countFiles(filepath.Join(e.stateDir, "pods"), "net") }},
		{"ip netns (host)", false, func(ctx context.Context) (int, error) { return countLines(ctx, "ip", "netns", "list") }},
		{"veths on the soak bridge", true, func(ctx context.Context) (int, error) {
			return countLines(ctx, "ip", "-o", "link", "show", "master", e.bridgeName)
		}},
		{"veths (host)", false, func(ctx context.Context) (int, error) {
			return countLines(ctx, "ip", "-o", "link", "show", "type", "veth")
		}},
		{"IPAM files", true, func(context.Context) (int, error) { return countIPAM(e.ipamDir) }},
		{"CNI cache files", true, func(context.Context) (int, error) { return countIPAM(e.cniCache) }},
		{"iptables nat+filter (soak)", true, func(ctx context.Context) (int, error) {
			return countRules(ctx, func(l string) bool {
				return strings.Contains(l, e.bridgeName) || strings.Contains(l, e.netName) || strings.Contains(l, e.subnet.String())
			})
		}},
		{"iptables nat+filter (host)", false, func(ctx context.Context) (int, error) {
			return countRules(ctx, func(string) bool { return true })
		}},
		{"mounts (soak dirs)", true, func(context.Context) (int, error) {
			return countMounts(func(l string) bool { return strings.Contains(l, e.dir) || strings.Contains(l, "/"+ns+"/") })
		}},
		{"mounts (host)", false, func(context.Context) (int, error) { return countMounts(func(string) bool { return true }) }},
		{"containerd containers", true, func(ctx context.Context) (int, error) {
			cs, err := e.client.Containers(nsCtx(ctx))
			return len(cs), err
		}},
		{"containerd tasks", true, func(ctx context.Context) (int, error) {
			r, err := e.client.TaskService().List(nsCtx(ctx), nil)
			if err != nil {
				return 0, err
			}
			return len(r.Tasks), nil
		}},
		{"containerd snapshots", true, func(ctx context.Context) (int, error) {
			n := 0
			err := e.client.SnapshotService(defaults.DefaultSnapshotter).Walk(nsCtx(ctx), func(context.Context, snapshots.Info) error { n++; return nil })
			return n, err
		}},
		{"containerd leases", true, func(ctx context.Context) (int, error) {
			ls, err := e.client.LeasesService().List(nsCtx(ctx))
			return len(ls), err
		}},
		{"shim processes", true, func(context.Context) (int, error) {
			return countProcs(func(argv []string) bool {
				return strings.Contains(filepath.Base(argv[0]), "containerd-shim") && hasArg(argv, "-namespace", ns)
			})
		}},
		{"logger processes", true, func(context.Context) (int, error) {
			return countProcs(func(argv []string) bool { return argv[0] == e.logger })
		}},
		{"pod cgroups", true, func(context.Context) (int, error) { return countCgroups(ns) }},
		{"fds (this process)", true, func(context.Context) (int, error) { return countDir("/proc/self/fd") }},
		{"goroutines (this process)", true, func(context.Context) (int, error) { return runtime.NumGoroutine(), nil }},
	}
}

// snapshot counts everything; a failed count is -1 (and fails the soak).
func snapshot(ctx context.Context, cs []counter) ([]int, []error) {
	out := make([]int, len(cs))
	var errs []error
	for i, c := range cs {
		n, err := c.count(ctx)
		if err != nil {
			n = -1
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
		out[i] = n
	}
	return out, errs
}

// grown names the scoped counters that grew from before to after.
func grown(cs []counter, before, after []int) []string {
	var out []string
	for i, c := range cs {
		if c.scoped && (after[i] > before[i] || after[i] < 0) {
			out = append(out, c.name)
		}
	}
	return out
}

func countLines(ctx context.Context, name string, args ...string) (int, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return bytes.Count(out, []byte("\n")), nil
}

// countRules counts the rules (-A lines) of the nat and filter tables that match.
func countRules(ctx context.Context, match func(string) bool) (int, error) {
	n := 0
	for _, table := range []string{"nat", "filter"} {
		out, err := exec.CommandContext(ctx, "iptables-save", "-t", table).Output()
		if err != nil {
			return 0, fmt.Errorf("iptables-save -t %s: %w", table, err)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "-A ") && match(l) {
				n++
			}
		}
	}
	return n, nil
}

func countMounts(match func(string) bool) (int, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if match(l) {
			n++
		}
	}
	return n, nil
}

// countFiles counts the files named name under dir (0 if dir does not exist).
func countFiles(dir, name string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() && d.Name() == name {
			n++
		}
		return nil
	})
	return n, err
}

// countIPAM counts host-local's reservations (one file per address) under dir.
func countIPAM(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() && !strings.HasPrefix(d.Name(), "last_reserved_ip") && d.Name() != "lock" {
			n++
		}
		return nil
	})
	return n, err
}

func countDir(dir string) (int, error) {
	es, err := os.ReadDir(dir)
	return len(es), err
}

// countCgroups counts the cgroups under the namespace's cgroup in every hierarchy (containerd
// puts a container's cgroup at /<namespace>/<id>).
func countCgroups(ns string) (int, error) {
	hs, err := os.ReadDir(cgroupRoot)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, h := range hs {
		if !h.IsDir() {
			continue
		}
		c, err := countSubdirs(filepath.Join(cgroupRoot, h.Name(), ns))
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

func countSubdirs(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() && path != dir {
			n++
		}
		return nil
	})
	return n, err
}

// countProcs counts the processes whose command line matches.
func countProcs(match func(argv []string) bool) (int, error) {
	es, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range es {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue // gone, or a kernel thread
		}
		if match(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")) {
			n++
		}
	}
	return n, nil
}

func hasArg(argv []string, flag, value string) bool {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag && argv[i+1] == value {
			return true
		}
	}
	return false
}

// removeNamespaceCgroups removes the namespace's cgroup directories (/sys/fs/cgroup/*/<ns>),
// which containerd never removes, once they are empty (rmdir, deepest first).
func removeNamespaceCgroups(ns string) error {
	hs, err := os.ReadDir(cgroupRoot)
	if err != nil {
		return err
	}
	var errs []string
	for _, h := range hs {
		if !h.IsDir() {
			continue
		}
		root := filepath.Join(cgroupRoot, h.Name(), ns)
		var dirs []string
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := os.Remove(dirs[i]); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("cgroups of namespace %s: %s", ns, strings.Join(errs, "; "))
	}
	return nil
}

const cgroupRoot = "/sys/fs/cgroup"
