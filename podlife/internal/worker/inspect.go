package worker

import (
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// What the tests of the package that runs workers (podlife's) check and users cannot see: a
// worker's internals, read or driven from outside its package. Nothing else calls these.

// Sandbox is the pod's sandbox: its directory, namespaces and address.
func (p *Worker) Sandbox() *podsandbox.Sandbox { return p.sandbox }

// StartTime is the pod's start time, as its record keeps it.
func (p *Worker) StartTime() time.Time { return p.startTime }

// ShimGroup is the shim group the pod's containers share (see shimGroup).
func (p *Worker) ShimGroup() string { return p.shimGroup() }

// PauseID is the containerd ID of the pod's pause, "" for a pod without one.
func (p *Worker) PauseID() string {
	if p.pause == nil {
		return ""
	}
	return p.pause.id
}

// LeaseID is the ID of the pod's containerd lease.
func (p *Worker) LeaseID() string { return podsandbox.LeaseID(p.uid) }

// VolumeReadOnly reports whether the pod's volume of that name is mounted read-only.
func (p *Worker) VolumeReadOnly(name string) bool { return p.volumeReadOnly(name) }

// BackoffKey is the crash-loop back-off key of the pod's container of that name ("" for none).
func (p *Worker) BackoffKey(container string) string {
	c, ok := p.byName[container]
	if !ok {
		return ""
	}
	return c.backoffKey()
}

// Do runs fn on the pod's loop and reports whether it ran (see do).
func (p *Worker) Do(fn func()) bool { return p.do(fn) }

// Update runs fn on the pod's loop, then publishes a snapshot, and reports whether it ran.
func (p *Worker) Update(fn func()) bool { return p.update(fn) }

// LoopDone is closed when the pod's loop has ended.
func (p *Worker) LoopDone() <-chan struct{} { return p.owner.Done() }

// LogPath is the CRI-format log file of c's current attempt ("" until created).
func LogPath(c *Container) string { return c.logPath() }
