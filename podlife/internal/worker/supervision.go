package worker

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// supervisionFile is what a pod's manager persists, beyond pod.json and status.json, for a
// process that adopts the pod after it (see Runtime.Adopt): per container, the postStart hook in
// flight, whether the startup probe of the current instance succeeded, and the crash-loop
// back-off. Restart counts and attempt numbers are containerd's (each instance's attempt
// label), and the start sequence's progress is the containers' tasks' states.
const supervisionFile = "supervision.json"

// supervisionRecord is supervision.json.
type supervisionRecord struct {
	Containers map[string]ContainerSupervision `json:"containers,omitempty"`
	// Stop is the pod's stop, once its manager began it: an adopter finishes the stop instead
	// of resuming the pod (a stop is never undone, as a Kubernetes deletion is not).
	Stop *stopIntent `json:"stop,omitempty"`
}

// stopIntent is a stop a manager began (supervision.json's "stop").
type stopIntent struct {
	// Since is when the stop began; Grace its grace period, and Hooks whether preStop hooks
	// run: an adopter stops with what is left of the grace period.
	Since time.Time     `json:"since"`
	Grace time.Duration `json:"grace"`
	Hooks bool          `json:"hooks,omitempty"`
}

// remaining is what is left of the stop's grace period at now (never negative).
func (i stopIntent) remaining(now time.Time) time.Duration {
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

// supervisionStore keeps supervision.json in step with the pod: every change is written (fsync,
// atomic rename) before the step it records goes on.
type supervisionStore struct {
	path string
	mu   sync.Mutex
	rec  supervisionRecord
}

func newSupervisionStore(dir string) *supervisionStore {
	return &supervisionStore{path: filepath.Join(dir, supervisionFile), rec: supervisionRecord{Containers: map[string]ContainerSupervision{}}}
}

// load reads the file a previous manager wrote (none is no error).
func (s *supervisionStore) load() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec supervisionRecord
	if err := poddir.ReadJSON(s.path, &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if rec.Containers == nil {
		rec.Containers = map[string]ContainerSupervision{}
	}
	s.rec = rec
	return nil
}

// get returns container's entry.
func (s *supervisionStore) get(container string) ContainerSupervision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.Containers[container]
}

// update changes container's entry and writes the file if it changed.
func (s *supervisionStore) update(container string, fn func(*ContainerSupervision)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.rec.Containers[container]
	before := e
	fn(&e)
	if e == before {
		return nil
	}
	s.rec.Containers[container] = e
	err := poddir.WriteJSON(s.path, s.rec)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the pod's directory is gone: removed
	}
	return err
}

// stopIntent returns the stop a previous manager began, if any (see load).
func (s *supervisionStore) stopIntent() *stopIntent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.Stop
}

// beginStop records the pod's stop (once: a later call keeps the first).
func (s *supervisionStore) beginStop(i stopIntent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec.Stop != nil {
		return nil
	}
	s.rec.Stop = &i
	err := poddir.WriteJSON(s.path, s.rec)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the pod's directory is gone: removed
	}
	return err
}

// persistStop records that the pod's stop began, so that an adopter after a crash finishes it;
// a failure is logged (the stop goes on; only an adoption after a crash would miss it).
func (p *Worker) persistStop(grace time.Duration, hooks bool) {
	if p.sup == nil {
		return
	}
	if err := p.sup.beginStop(stopIntent{Since: p.rt.Clock.Now(), Grace: grace, Hooks: hooks}); err != nil {
		p.log.Warn("stop not persisted: an adopter after a crash would resume the pod", "err", err)
	}
}

// persistSupervision records a change of c's supervision state; a failure is logged (the pod
// goes on; only an adoption after a crash would miss it).
func (c *Container) persistSupervision(fn func(*ContainerSupervision)) {
	p := c.pod
	if p.sup == nil || c.ephemeral {
		return
	}
	if err := p.sup.update(c.spec.Name, fn); err != nil {
		p.log.Warn("supervision state not persisted", "container", c.spec.Name, "err", err)
	}
}

// persistBackoff records c's crash-loop back-off entry.
func (c *Container) persistBackoff() {
	delay, updated := c.pod.rt.Backoff.State(c.backoffKey())
	c.persistSupervision(func(s *ContainerSupervision) { s.BackoffDelay, s.BackoffUpdated = delay, updated })
}
