package usage

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

// Snapshots is what measuring writable layers needs of containerd: a snapshot's size.
type Snapshots interface {
	// SnapshotUsage is the size of the snapshot key (a container's ID), in bytes.
	SnapshotUsage(ctx context.Context, key string) (int64, error)
}

// PodDisk measures what the pod name, whose directory is dir, keeps on disk: its log files and
// on-disk volumes (see Disk), and the writable layers of its containers (see WritableLayers;
// none if snaps is nil). The error names the pod.
func PodDisk(ctx context.Context, src Source, snaps Snapshots, name, uid, dir string) (DiskUsage, error) {
	var out DiskUsage
	var err error
	if out.Logs, err = Disk(ctx, filepath.Join(dir, "logs")); err != nil {
		return DiskUsage{}, fmt.Errorf("pod %q: disk usage: %w", name, err)
	}
	if out.Volumes, err = Disk(ctx, filepath.Join(dir, "volumes")); err != nil {
		return DiskUsage{}, fmt.Errorf("pod %q: disk usage: %w", name, err)
	}
	if snaps != nil {
		out.WritableLayers = WritableLayers(ctx, src, snaps, uid)
	}
	return out, nil
}

// WritableLayers sums the writable snapshots of the pod uid's containers (their snapshot key is
// the container's ID); what cannot be measured counts as 0.
func WritableLayers(ctx context.Context, src Source, snaps Snapshots, uid string) uint64 {
	found, err := src.Containers(ctx, uid)
	if err != nil {
		return 0
	}
	var n uint64
	for _, id := range SampledIDs(found) {
		if size, err := snaps.SnapshotUsage(ctx, id); err == nil && size > 0 {
			n += uint64(size)
		}
	}
	return n
}
