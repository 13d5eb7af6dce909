package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Usage samples the usage of every pod of the state directory, sorted by name, whichever
// process manages each, or none (see Pod.Usage for what a sample holds): a pod with no running
// container has no Containers. It costs one containerd request that lists podlife's containers
// for all the pods, then what Pod.Usage costs per running container: sampling 100 pods so is
// several times cheaper than 100 calls of Pod.Usage, each of which lists containers
// (docs/benchmarks.md). A pod created or removed meanwhile may be left out.
// The error wraps ErrUnavailable if containerd does not answer, and ErrClosed once the Runtime
// is closed.
func (r *Runtime) Usage(ctx context.Context) ([]PodUsage, error) {
	if r.isClosed() {
		return nil, fmt.Errorf("podlife: usage: %w", ErrClosed)
	}
	entries, err := os.ReadDir(filepath.Join(r.cfg.StateDir, "pods"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("podlife: usage: %w", err)
	}
	type pod struct {
		name string
		rec  podRecord
	}
	var pods []pod
	byUID := map[string]int{} // pod UID -> index in pods
	for _, e := range entries {
		if checkName("pod", e.Name()) != nil {
			continue // not a pod's directory
		}
		rec, err := r.readRecord(e.Name())
		if errors.Is(err, ErrNotFound) {
			continue // being created or removed
		}
		if err != nil {
			return nil, fmt.Errorf("podlife: usage: %w", err)
		}
		byUID[rec.UID] = len(pods)
		pods = append(pods, pod{e.Name(), rec})
	}
	if len(pods) == 0 {
		return nil, nil
	}
	ctx = r.ctx(ctx)
	all, err := r.tasks.Containers(ctx, nil, labelPodUID, LabelContainer)
	if err != nil {
		return nil, fmt.Errorf("podlife: usage: %w", err)
	}
	found := make([][]tasks.Found, len(pods))
	for _, f := range all {
		if i, ok := byUID[f.Labels[labelPodUID]]; ok { // not another state directory's
			found[i] = append(found[i], f)
		}
	}
	var ids []string
	for _, fs := range found {
		ids = append(ids, sampledIDs(fs)...)
	}
	samples, err := r.tasks.Sample(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("podlife: usage: %w", err)
	}
	out := make([]PodUsage, len(pods))
	for i, p := range pods {
		out[i] = r.usageOf(p.name, p.rec, found[i], samples)
	}
	return out, nil
}
