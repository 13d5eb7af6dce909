package podlife

import (
	"context"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/usage"
)

// DiskUsage is what a pod keeps on disk: the kubelet's ephemeral storage (its logs and on-disk
// volumes in the state directory, its containers' writable layers in the snapshotter's). Its
// fields are documented at [usage.DiskUsage].
type DiskUsage = usage.DiskUsage

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
	var snaps usage.Snapshots // none without containerd: writable layers count as 0
	if p.rt.ctrd != nil {
		snaps = p.rt.ctrd
	}
	dir := filepath.Join(p.rt.cfg.StateDir, "pods", p.name)
	return usage.PodDisk(p.rt.ctx(ctx), usageSource{p.rt.tasks}, snaps, p.name, rec.UID, dir)
}
