package podlife

import (
	"encoding/json"
	"fmt"

	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/remote"
)

// What a Pod handle reads of a pod this Runtime does not manage: its record in the state
// directory, written by the process that started it; and how it reaches the pod's containers
// without its worker (package remote).

// readRecord reads the record of the named pod (a valid name), or returns an error wrapping
// ErrNotFound if the state directory has no such pod.
func (r *Runtime) readRecord(name string) (podRecord, error) {
	var rec podRecord
	if err := found.ReadRecord(r.cfg.StateDir, name, &rec); err != nil {
		return podRecord{}, err
	}
	return rec, nil
}

// recordSpec is the spec the record of the named pod keeps (see stoppableSpec), with the pod's
// defaults applied.
func (r *Runtime) recordSpec(name string) (PodSpec, error) {
	rec, err := r.readRecord(name)
	if err != nil {
		return PodSpec{}, err
	}
	if len(rec.Spec) == 0 {
		return PodSpec{}, fmt.Errorf("pod %q: its record has no spec", name)
	}
	var spec PodSpec
	if err := json.Unmarshal(rec.Spec, &spec); err != nil {
		return PodSpec{}, fmt.Errorf("pod %q: the spec in its record: %w", name, err)
	}
	return spec.WithDefaults(), nil
}

// remote reaches the pods of the state dir without their worker (see package remote).
func (r *Runtime) remote() remote.Pods {
	return remote.Pods{StateDir: r.cfg.StateDir, Namespace: r.cfg.Namespace, Tasks: r.tasks}
}
