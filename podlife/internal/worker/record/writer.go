package record

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/specfp"
)

// Snapshot is what a pod's record is written from: values its worker took on the pod's loop
// (Record's fields but the spec and its fingerprints), and the ones it took outside it (Key).
type Snapshot struct {
	// Dir is the pod's directory.
	Dir string
	// Record is the record without Spec and the fingerprints, which Write computes.
	Record Record
	// Recorded is the recorded form of the pod's spec (see Record.Spec).
	Recorded PodSpec
	// Key is the state dir's key of spec fingerprints.
	Key []byte
	// Kept is the record of a pod adopted only to stop it (nil for others): its spec (the
	// record's, without values) is not the pod's, so the record keeps the fingerprints it had.
	Kept *Record
	// WriteFile writes the record at path (nil: poddir.WriteJSON, synced before it returns).
	WriteFile func(path string, rec Record) error
}

// Writer writes a pod's pod.json. The worker takes a ticket on the pod's loop with the
// snapshot, so that tickets follow the order of the pod's changes; a snapshot older than the
// one on disk is not written. Its lock guards the file's writes only.
type Writer struct {
	tickets atomic.Uint64
	mu      sync.Mutex // the file's writes: written, release
	written uint64     // the ticket of the snapshot on disk
	release func()     // releases the pods' lock once pod.json is written (see package poddir)
}

// NewWriter returns the writer of a pod's record; release (nil for none) is called once, after
// the first write that succeeds, or by Release (see SetRelease).
func NewWriter(release func()) *Writer { return &Writer{release: release} }

// Ticket numbers a snapshot: take it where the snapshot is taken (on the pod's loop).
func (w *Writer) Ticket() uint64 { return w.tickets.Add(1) }

// SetRelease replaces the release called after the next write (a warm pool member's pods'
// lock, taken when its directory became the pod's).
func (w *Writer) SetRelease(release func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.release = release
}

// Release calls the release now if no write did: the pod's directory is discarded, or removed
// after its first record could not be written (its start failed), or left as it is.
func (w *Writer) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.releaseLocked()
}

func (w *Writer) releaseLocked() {
	if w.release != nil {
		w.release()
		w.release = nil // once: an adopter writes the record again
	}
}

// Write writes s, numbered ticket, as the pod's record unless a newer snapshot is on disk, and
// then calls the release (see NewWriter). A write that fails keeps the pods' lock: the pod's
// directory has no record, and its process still undoes what is in it (a taken warm pool
// member's containers, namespaces and network), which another process's startup garbage
// collection must not take for a crash's leftover meanwhile; the caller calls Release once the
// directory is removed or left.
func (w *Writer) Write(ticket uint64, s Snapshot) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ticket < w.written {
		return nil // a newer snapshot is on disk (its write released)
	}
	rec := s.Record
	// The recorded form, not the defaulted spec: records keep what they always kept.
	fields := specfp.Fields(s.Recorded, s.Key)
	spec, err := json.Marshal(StoppableSpec(s.Recorded))
	if err != nil {
		return fmt.Errorf("pod record: spec: %w", err)
	}
	rec.SpecMAC, rec.SpecMACs, rec.SpecKey, rec.Spec = specfp.Hash(fields), fields, specfp.KeyID(s.Key), spec
	if old := s.Kept; old != nil {
		// Adopted to be stopped, from the record's spec: the fingerprints are those of the
		// spec the pod was started with (an older manager's unkeyed ones stay until an
		// adoption with the full spec writes keyed ones).
		rec.SpecMAC, rec.SpecMACs, rec.SpecKey = old.SpecMAC, old.SpecMACs, old.SpecKey
		rec.SpecHash, rec.SpecFields = old.SpecHash, old.SpecFields
	}
	write := s.WriteFile
	if write == nil {
		write = func(path string, rec Record) error { return poddir.WriteJSON(path, rec) }
	}
	if err := write(filepath.Join(s.Dir, RecordFile), rec); err != nil {
		return err
	}
	w.written = ticket
	w.releaseLocked()
	return nil
}
