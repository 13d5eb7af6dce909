package record

import (
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// SupervisionFile is what a pod's manager persists, beyond pod.json and status.json, for a
// process that adopts the pod after it (see Runtime.Adopt): per container, the postStart hook in
// flight, whether the startup probe of the current instance succeeded, and the crash-loop
// back-off. Restart counts and attempt numbers are containerd's (each instance's attempt
// label), and the start sequence's progress is the containers' tasks' states.
const SupervisionFile = "supervision.json"

// Supervision is supervision.json, as a previous manager left it (LoadSupervision): a value.
type Supervision struct {
	Containers map[string]ContainerSupervision `json:"containers,omitempty"`
	// Stop is the pod's stop, once its manager began it: an adopter finishes the stop instead
	// of resuming the pod (a stop is never undone, as a Kubernetes deletion is not).
	Stop *StopIntent `json:"stop,omitempty"`
}

// StopIntent is a stop a manager began (supervision.json's "stop").
type StopIntent struct {
	// Since is when the stop began; Grace its grace period, and Hooks whether preStop hooks
	// run: an adopter stops with what is left of the grace period.
	Since time.Time     `json:"since"`
	Grace time.Duration `json:"grace"`
	Hooks bool          `json:"hooks,omitempty"`
}

// Remaining is what is left of the stop's grace period at now (never negative).
func (i StopIntent) Remaining(now time.Time) time.Duration {
	return max(i.Grace-now.Sub(i.Since), 0)
}

// ContainerSupervision is one container's part of supervision.json.
type ContainerSupervision struct {
	// PostStart is the containerd ID of the instance whose postStart hook runs ("" when none):
	// set before the hook starts, cleared when it returned.
	PostStart string `json:"postStart,omitempty"`
	// Started is the containerd ID of the instance whose startup probe succeeded.
	Started string `json:"started,omitempty"`
	// BackoffDelay and BackoffUpdated are the container's crash-loop back-off entry (see
	// restart.Tracker.State).
	BackoffDelay   time.Duration `json:"backoffDelay,omitempty"`
	BackoffUpdated time.Time     `json:"backoffUpdated,omitzero"`
}

// LoadSupervision reads the supervision.json of the pod in dir (none is no error: empty).
func LoadSupervision(dir string) (Supervision, error) {
	var rec Supervision
	if err := poddir.ReadJSON(filepath.Join(dir, SupervisionFile), &rec); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Supervision{}, err
	}
	return rec, nil
}

// SupervisionWriter keeps supervision.json in step with the pod: every change is written
// (fsync, atomic rename) before the step it records goes on. Its lock guards the file: its
// content, which only its writes read (the pod's state is the worker's), and its writes,
// which land in the order of the changes.
type SupervisionWriter struct {
	mu   sync.Mutex
	path string
	rec  Supervision
}

// NewSupervisionWriter returns the writer of the supervision.json of the pod in dir, which
// holds from (a copy of it: from is not changed).
func NewSupervisionWriter(dir string, from Supervision) *SupervisionWriter {
	rec := Supervision{Containers: maps.Clone(from.Containers), Stop: from.Stop}
	if rec.Containers == nil {
		rec.Containers = map[string]ContainerSupervision{}
	}
	return &SupervisionWriter{path: filepath.Join(dir, SupervisionFile), rec: rec}
}

// SetDir moves the file to the pod directory dir (a warm pool member's, once claimed).
func (w *SupervisionWriter) SetDir(dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.path = filepath.Join(dir, SupervisionFile)
}

// Update changes container's entry and writes the file if it changed.
func (w *SupervisionWriter) Update(container string, fn func(*ContainerSupervision)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.rec.Containers[container]
	before := e
	fn(&e)
	if e == before {
		return nil
	}
	w.rec.Containers[container] = e
	return w.writeLocked()
}

// BeginStop records the pod's stop (once: a later call keeps the first).
func (w *SupervisionWriter) BeginStop(i StopIntent) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rec.Stop != nil {
		return nil
	}
	w.rec.Stop = &i
	return w.writeLocked()
}

func (w *SupervisionWriter) writeLocked() error {
	err := poddir.WriteJSON(w.path, w.rec)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the pod's directory is gone: removed
	}
	return err
}

// EditSupervision changes container's entry of the supervision.json of the pod in dir.
func EditSupervision(dir, container string, fn func(*ContainerSupervision)) error {
	rec, err := LoadSupervision(dir)
	if err != nil {
		return err
	}
	return NewSupervisionWriter(dir, rec).Update(container, fn)
}

// ReadSupervision reads container's entry of the supervision.json of the pod in dir.
func ReadSupervision(dir, container string) (ContainerSupervision, error) {
	rec, err := LoadSupervision(dir)
	return rec.Containers[container], err
}
