package podlife

import (
	"context"
	"fmt"
	"path/filepath"
)

// DiskUsage is what a pod keeps on the state directory's disk (the kubelet's ephemeral storage,
// but the containers' writable layers, which are the snapshotter's).
type DiskUsage struct {
	// Logs is the size of its containers' log files, every attempt's, in bytes.
	Logs uint64
	// Volumes is the size of its emptyDir and files volumes on disk, in bytes: a Memory-medium
	// volume is not counted (its pages are in its writers' memory usage), nor what is mounted
	// into the volumes' directory from another filesystem.
	Volumes uint64
}

// DiskUsage measures what the pod keeps on disk: the space its log files and on-disk volumes
// take (allocated blocks, as du counts them). It walks those directories, so it costs in
// proportion to their number of files: the kubelet measures it on a slower period than CPU and
// memory, and so should a caller. It works whichever process manages the pod, or none; the
// error wraps ErrNotFound if the state directory has no such pod. On other systems than Linux
// it returns an error wrapping errors.ErrUnsupported.
func (p *Pod) DiskUsage(ctx context.Context) (DiskUsage, error) {
	if _, err := p.rt.readRecord(p.name); err != nil {
		return DiskUsage{}, err
	}
	dir := filepath.Join(p.rt.cfg.StateDir, "pods", p.name)
	var out DiskUsage
	var err error
	if out.Logs, err = diskUsage(ctx, filepath.Join(dir, "logs")); err != nil {
		return DiskUsage{}, fmt.Errorf("pod %q: disk usage: %w", p.name, err)
	}
	if out.Volumes, err = diskUsage(ctx, filepath.Join(dir, "volumes")); err != nil {
		return DiskUsage{}, fmt.Errorf("pod %q: disk usage: %w", p.name, err)
	}
	return out, nil
}
