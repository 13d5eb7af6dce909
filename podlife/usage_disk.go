package podlife

import (
	"context"
	"fmt"
	"path/filepath"
)

// DiskUsage is what a pod keeps on disk: the kubelet's ephemeral storage (its logs and on-disk
// volumes in the state directory, its containers' writable layers in the snapshotter's).
type DiskUsage struct {
	// Logs is the size of its containers' log files, every attempt's, in bytes.
	Logs uint64
	// Volumes is the size of its emptyDir and files volumes on disk, in bytes: a Memory-medium
	// volume is not counted (its pages are in its writers' memory usage), nor what is mounted
	// into the volumes' directory from another filesystem.
	Volumes uint64
	// WritableLayers is the size of its containers' writable layers (what they wrote outside
	// their volumes: the snapshotter's upper directories), in bytes, as the snapshotter counts
	// it; 0 when containerd cannot be asked.
	WritableLayers uint64
}

// DiskUsage measures what the pod keeps on disk: the space its log files and on-disk volumes
// take (allocated blocks, as du counts them), and its containers' writable layers. It walks those directories, so it costs in
// proportion to their number of files: the kubelet measures it on a slower period than CPU and
// memory, and so should a caller. It works whichever process manages the pod, or none; the
// error wraps ErrNotFound if the state directory has no such pod. On other systems than Linux
// it returns an error wrapping errors.ErrUnsupported.
func (p *Pod) DiskUsage(ctx context.Context) (DiskUsage, error) {
	rec, err := p.rt.readRecord(p.name)
	if err != nil {
		return DiskUsage{}, err
	}
	dir := filepath.Join(p.rt.cfg.StateDir, "pods", p.name)
	var out DiskUsage
	if out.Logs, err = diskUsage(ctx, filepath.Join(dir, "logs")); err != nil {
		return DiskUsage{}, fmt.Errorf("pod %q: disk usage: %w", p.name, err)
	}
	if out.Volumes, err = diskUsage(ctx, filepath.Join(dir, "volumes")); err != nil {
		return DiskUsage{}, fmt.Errorf("pod %q: disk usage: %w", p.name, err)
	}
	out.WritableLayers = p.rt.writableLayers(ctx, rec.UID)
	return out, nil
}

// writableLayers sums the writable snapshots of the pod uid's containers (their snapshot key is
// the container's ID); what cannot be measured counts as 0.
func (r *Runtime) writableLayers(ctx context.Context, uid string) uint64 {
	if r.ctrd == nil {
		return 0
	}
	ctx = r.ctx(ctx)
	found, err := r.tasks.Containers(ctx, map[string]string{labelPodUID: uid}, LabelContainer)
	if err != nil {
		return 0
	}
	var n uint64
	for _, id := range sampledIDs(found) {
		if size, err := r.ctrd.SnapshotUsage(ctx, id); err == nil && size > 0 {
			n += uint64(size)
		}
	}
	return n
}
