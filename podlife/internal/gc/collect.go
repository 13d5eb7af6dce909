package gc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"log/slog"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/hostmount"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// Collector is a Runtime's startup garbage collection: what it needs of the Runtime, as values.
type Collector struct {
	// StateDir is the Runtime's state directory, as its Config says it (the value of the
	// objects' state-dir label).
	StateDir string
	// RealDir maps a path under StateDir to the path it resolves to (symlinks followed), the
	// one the mount table shows.
	RealDir func(string) string
	// Namespace is the containerd namespace (the first part of the containers' cgroup paths).
	Namespace string
	// PodCgroup is the cgroup path of the pod uid's cgroup.
	PodCgroup func(uid string) string
	// Network is the Runtime's pod network.
	Network cni.Network
	// Tasks is containerd, in the Runtime's namespace.
	Tasks Tasks
	// Log gets what was cleaned or could not be.
	Log *slog.Logger
}

// Tasks is what the collection needs of containerd: the containers and leases of pods, and
// their deletion.
type Tasks interface {
	// Containers lists the containers that have the label key, whatever its value.
	Containers(ctx context.Context, key string) ([]Container, error)
	// Leases lists the leases that have the label key.
	Leases(ctx context.Context, key string) ([]Lease, error)
	// DeleteLease deletes a lease (and the snapshots it holds); an error wrapping
	// errdefs.ErrNotFound if it does not exist.
	DeleteLease(ctx context.Context, id string) error
	// RemoveStaleShim removes the socket of a shim group whose tasks are all deleted if no
	// shim serves it any more.
	RemoveStaleShim(group string, log *slog.Logger)
}

// Container is a containerd container found by Tasks.Containers.
type Container struct {
	ID     string
	Labels map[string]string
	// Purge deletes its task (killing its process) if it has one, then the container and its
	// snapshot; a task or container already gone is not an error.
	Purge func(ctx context.Context) error
}

// Lease is a containerd lease found by Tasks.Leases.
type Lease struct {
	ID     string
	Labels map[string]string
}

// The labels and files the collection reads (package layout names them for every package).
const (
	labelPod      = layout.LabelPod
	labelPodUID   = layout.LabelPodUID
	labelStateDir = layout.LabelStateDir
	recordFile    = layout.RecordFile
	sandboxFile   = layout.SandboxFile
)

// podRecord is what the collection reads of a pod's record: its UID.
type podRecord struct {
	UID string `json:"uid"`
}

// sandboxRecord is what it reads of a pod's sandbox record: the network attachment.
type sandboxRecord struct {
	UID     string `json:"uid"`
	Network string `json:"network"` // "", "attaching", "attached"
	NetNS   string `json:"netns,omitempty"`
}

// Collect is New's startup garbage collection: it deletes what processes that died left of pods
// they were creating or removing, and logs (Warn) each thing it cleaned or could not:
//
//   - pod directories without pod.json (a crash between creating the directory and writing the
//     record) and .removing- directories (a crash while a removed pod's directory was deleted):
//     their pinned namespaces and mounts, the network attachment sandbox.json records, then the
//     directory (without going through a mount: see hostmount.RemoveTree); and the directory of
//     a pod whose record a crash of the host cut short (see diedWithHost), the same way;
//   - containerd containers (with their tasks, snapshots, cgroups and the stale socket of the
//     pod's shim) and leases labeled with this state directory whose pod has no record;
//   - warm pool members whose process died (see collectPool), and what the three points
//     below find of them;
//   - host-local IPAM leases of the runtime's bridge (when its state is under the state
//     directory) held by a pod that has no record: CNI DEL releases them with their iptables
//     rules.
//
// A pod with a record is never touched, whether or not its manager lives (Pod.Remove removes
// one whose manager died). A record that cannot be read (or a pods directory that cannot be
// listed) hides a pod's UID, and any container or lease may be that pod's: then only the
// directories are collected, no container, lease or IP lease. It holds the pods' lock exclusively (see package poddir) while it looks,
// so that a pod another live process is creating at the same time is never taken for garbage.
func (r *Collector) Collect(ctx context.Context) {
	unlock, err := poddir.LockPods(r.StateDir, syscall.LOCK_EX)
	if err != nil {
		r.Log.Warn("startup garbage collection skipped", "err", err)
		return
	}
	defer unlock()
	known, unreadable := r.collectDirs(ctx)
	unreadable += r.collectPool(ctx, known)
	if unreadable > 0 {
		// The UIDs of those pods are unknown: any container, lease or IP lease may be theirs.
		r.Log.Warn("startup garbage collection: pod records unreadable; containers, leases and IP leases not collected", "unreadable", unreadable)
		return
	}
	r.collectContainerd(ctx, known)
	r.collectIPAM(ctx, known)
}

// collectDirs removes the half-created and half-removed pod directories and returns the UIDs of
// the pods that have a record, and how many pod directories have a record it could not read
// (left alone: their pods may live).
func (r *Collector) collectDirs(ctx context.Context) (known map[string]bool, unreadable int) {
	known = map[string]bool{}
	root := filepath.Join(r.StateDir, "pods")
	entries, err := os.ReadDir(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.Log.Warn("startup garbage collection: list pods", "err", err)
			return known, 1 // nothing known: collect nothing
		}
		return known, 0
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || !poddir.IsRemoving(e.Name()) && api.CheckName("pod", e.Name()) != nil {
			continue // not ours
		}
		var rec podRecord
		err := poddir.ReadJSON(filepath.Join(dir, recordFile), &rec)
		if err == nil && !poddir.IsRemoving(e.Name()) {
			known[rec.UID] = true
			continue
		}
		diedHost := diedWithHost(dir, err)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !poddir.IsRemoving(e.Name()) && !diedHost {
			// A record that cannot be read may still be a live pod's: say so, keep it.
			r.Log.Warn("startup garbage collection: pod record unreadable; left alone", "dir", dir, "err", err)
			unreadable++
			continue
		}
		what := "half-created pod directory (no pod.json)"
		if diedHost {
			what = "pod directory whose record was cut short by a crash of the host (its namespaces unmounted, no manager)"
		}
		if poddir.IsRemoving(e.Name()) {
			what = "pod directory whose removal was interrupted"
		}
		if err := r.removeLeftDir(ctx, dir); err != nil {
			r.Log.Warn("startup garbage collection: could not remove a "+what, "dir", dir, "err", err)
			continue
		}
		r.Log.Warn("startup garbage collection: removed a "+what, "dir", dir)
	}
	return known, unreadable
}

// removeLeftDir undoes what a pod directory without a live pod holds: its network attachment
// (from sandbox.json), pinned namespaces and mounts, then deletes it.
func (r *Collector) removeLeftDir(ctx context.Context, dir string) error {
	var sb sandboxRecord
	if err := poddir.ReadJSON(filepath.Join(dir, sandboxFile), &sb); err == nil && sb.Network != "" && sb.UID != "" {
		if err := r.Network.Remove(ctx, "podlife-"+sb.UID, sb.NetNS); err != nil {
			return fmt.Errorf("network detach: %w", err)
		}
	}
	if err := sandboxns.Remove(filepath.Join(dir, "ns")); err != nil {
		return fmt.Errorf("pinned namespaces: %w", err)
	}
	if err := hostmount.UnmountUnder(r.RealDir(dir)); err != nil {
		return err
	}
	return hostmount.RemoveTree(dir)
}

// ownsObject reports whether a containerd object's labels say it is of this state dir.
func (r *Collector) ownsObject(labels map[string]string) bool {
	return labels[labelStateDir] == r.StateDir
}

// collectContainerd deletes the containers (tasks and snapshots with them) and leases of this
// state dir whose pod has no record. Objects of pods without the state-dir label (made by an
// older podlife) are reported, not deleted: they may be another state dir's.
func (r *Collector) collectContainerd(ctx context.Context, known map[string]bool) {
	ctrs, err := r.Tasks.Containers(ctx, labelPodUID)
	if err != nil {
		r.Log.Warn("startup garbage collection: list containers", "err", err)
		return
	}
	unlabeled := 0
	orphans := map[string]bool{}
	for _, ctr := range ctrs {
		labels := ctr.Labels
		uid := labels[labelPodUID]
		if known[uid] {
			continue
		}
		if !r.ownsObject(labels) {
			if labels[labelStateDir] == "" {
				unlabeled++
			}
			continue
		}
		orphans[uid] = true
		if err := ctr.Purge(ctx); err != nil {
			r.Log.Warn("startup garbage collection: could not delete a container of a pod that has no record", "container", ctr.ID, "pod", labels[labelPod], "err", err)
			continue
		}
		// The pod's shim socket, if this container's task started the shim (see Pod.shimGroup).
		r.Tasks.RemoveStaleShim(ctr.ID, r.Log)
		_ = cgroupfs.Remove(filepath.Join("/", r.Namespace, ctr.ID))
		_ = cgroupfs.Remove(filepath.Join(r.PodCgroup(uid), ctr.ID))
		r.Log.Warn("startup garbage collection: deleted a container of a pod that has no record", "container", ctr.ID, "pod", labels[labelPod], "uid", uid)
	}
	for uid := range orphans {
		_ = cgroupfs.Sweep(r.PodCgroup(uid))
	}
	if unlabeled > 0 {
		r.Log.Warn("startup garbage collection: containers of pods without a record and without a state-dir label left alone (they may be another state dir's; Pod.Remove cannot find them)", "count", unlabeled)
	}
	all, err := r.Tasks.Leases(ctx, labelPodUID)
	if err != nil {
		r.Log.Warn("startup garbage collection: list leases", "err", err)
		return
	}
	for _, l := range all {
		// Deleted synchronously: the snapshots it held (image volume views, the snapshot of a
		// create cut short) go with it.
		if known[l.Labels[labelPodUID]] || !r.ownsObject(l.Labels) {
			continue
		}
		if err := r.Tasks.DeleteLease(ctx, l.ID); err != nil && !errdefs.IsNotFound(err) {
			r.Log.Warn("startup garbage collection: could not delete a lease of a pod that has no record", "lease", l.ID, "err", err)
			continue
		}
		r.Log.Warn("startup garbage collection: deleted the lease of a pod that has no record", "lease", l.ID, "pod", l.Labels[labelPod])
	}
}

// collectIPAM releases (CNI DEL) the host-local leases of the runtime's bridge held by pods of
// this state dir that have no record. Only a bridge whose state is under the state dir (the
// default) is looked at: another bridge's leases may be other state dirs' pods'.
func (r *Collector) collectIPAM(ctx context.Context, known map[string]bool) {
	b, ok := r.Network.(*cni.Bridge)
	if !ok {
		return
	}
	cfg := b.Config()
	if rel, err := filepath.Rel(r.StateDir, cfg.StateDir); err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	dir := filepath.Join(cfg.StateDir, "ipam", cfg.Name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		id := ipamOwner(filepath.Join(dir, e.Name()))
		uid, ok := strings.CutPrefix(id, "podlife-")
		if !ok || known[uid] {
			continue
		}
		if err := r.Network.Remove(ctx, id, ""); err != nil {
			r.Log.Warn("startup garbage collection: could not release the IP lease of a pod that has no record", "ip", e.Name(), "id", id, "err", err)
			continue
		}
		r.Log.Warn("startup garbage collection: released the IP lease of a pod that has no record", "ip", e.Name(), "id", id)
	}
}

// ipamOwner returns the container ID a host-local lease file names (its first line), "" for
// host-local's other files.
func ipamOwner(path string) string {
	if strings.HasPrefix(filepath.Base(path), "last_reserved_ip") || filepath.Base(path) == "lock" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if !s.Scan() {
		return ""
	}
	return strings.TrimSpace(s.Text())
}
