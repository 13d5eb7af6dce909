package podlife

import (
	"context"
	"errors"
	"fmt"

	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/usage"
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
	names, err := found.Names(r.cfg.StateDir)
	if err != nil {
		return nil, fmt.Errorf("podlife: usage: %w", err)
	}
	var pods []usage.Pod
	for _, name := range names {
		rec, err := r.readRecord(name)
		if errors.Is(err, ErrNotFound) {
			continue // being created or removed
		}
		if err != nil {
			return nil, fmt.Errorf("podlife: usage: %w", err)
		}
		pods = append(pods, usage.Pod{Name: name, UID: rec.UID, HostNetwork: rec.HostNetwork})
	}
	out, err := usage.SampleAll(r.ctx(ctx), usageSource{r.tasks}, r.log, pods)
	if err != nil {
		return nil, fmt.Errorf("podlife: usage: %w", err)
	}
	return out, nil
}
