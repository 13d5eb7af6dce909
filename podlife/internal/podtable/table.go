package podtable

import (
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Pod is what the table keeps of a pod: a handle with its name (the Runtime's is the pod's
// worker).
type Pod interface {
	comparable
	Name() string
}

// Table is a Runtime's pods by name: the workers (W) of the pods it manages, the names of pods
// being created, and whether the Runtime is closed. Its methods are safe for concurrent use.
// Its lock guards those three and nothing else: no method does I/O, takes another lock or
// calls into a pod while it holds it, so that nothing waits on the table for a containerd
// call, another process's lock or a pod's loop.
type Table[W Pod] struct {
	mu       sync.Mutex
	pods     map[string]W
	reserved map[string]bool // names of pods being created (see Reserve)
	closed   bool
}

// New returns an empty table.
func New[W Pod]() *Table[W] {
	return &Table[W]{pods: map[string]W{}, reserved: map[string]bool{}}
}

// Reserve takes a pod name for a pod being created, so that no other call takes it meanwhile;
// Register or Unreserve gives it back. It fails with api.ErrClosed, or an error wrapping
// api.ErrAlreadyExists if the name is taken.
func (t *Table[W]) Reserve(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return api.ErrClosed
	}
	if _, ok := t.pods[name]; ok || t.reserved[name] {
		return fmt.Errorf("pod %q: %w", name, api.ErrAlreadyExists)
	}
	t.reserved[name] = true
	return nil
}

// Unreserve gives back a name Reserve took, for a pod that was not created.
func (t *Table[W]) Unreserve(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.reserved, name)
}

// Reserved reports whether a pod being created holds the name.
func (t *Table[W]) Reserved(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reserved[name]
}

// Register adds w, whose name Reserve took, to the table; it fails with api.ErrClosed if the
// table was closed meanwhile (the name is given back either way).
func (t *Table[W]) Register(w W) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.reserved, w.Name())
	if t.closed {
		return api.ErrClosed
	}
	t.pods[w.Name()] = w
	return nil
}

// Adopted adds w, an adopted pod's worker, to the table: api.ErrClosed once the table is
// closed, a *api.ManagedError (this process) if the name is taken or reserved.
func (t *Table[W]) Adopted(w W) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return api.ErrClosed
	}
	if _, ok := t.pods[w.Name()]; ok || t.reserved[w.Name()] {
		return &api.ManagedError{Pod: w.Name(), PID: os.Getpid()}
	}
	t.pods[w.Name()] = w
	return nil
}

// Get returns the worker of the pod of that name, or an error wrapping api.ErrNotFound.
func (t *Table[W]) Get(name string) (W, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.pods[name]; ok {
		return w, nil
	}
	var none W
	return none, fmt.Errorf("pod %q: %w", name, api.ErrNotFound)
}

// List returns the workers of the table's pods, sorted by name.
func (t *Table[W]) List() []W {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]W, 0, len(t.pods))
	for _, w := range t.pods {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Forget drops w, if it is the pod of its name in the table.
func (t *Table[W]) Forget(w W) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pods[w.Name()] == w {
		delete(t.pods, w.Name())
	}
}

// Closed reports whether Close was called.
func (t *Table[W]) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Close closes the table and returns its pods' workers (they stay in it), or ok false if it
// was closed already.
func (t *Table[W]) Close() (pods []W, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false
	}
	t.closed = true
	pods = make([]W, 0, len(t.pods))
	for _, w := range t.pods {
		pods = append(pods, w)
	}
	return pods, true
}
