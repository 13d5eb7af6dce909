package adopt

import (
	"io"
	"sync"

	"github.com/podlife/podlife/podlife/internal/worker"
)

// Locks are the adoption locks (poddir.LockAdoption) a Runtime holds, one per pod it adopted:
// taken before the adoption, held while the Runtime manages the pod, and released when the pod
// is removed or left unmanaged again (the Runtime's forget) or the Runtime closed (once the
// pod's loop ended), so that no other process adopts the pod meanwhile. The zero value holds
// none. Its lock guards the map only: a lock is closed outside it.
type Locks struct {
	mu sync.Mutex
	m  map[*worker.Worker]io.Closer
}

// Hold keeps l, w's adoption lock, until Release.
func (a *Locks) Hold(w *worker.Worker, l io.Closer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[*worker.Worker]io.Closer{}
	}
	a.m[w] = l
}

// Release closes w's adoption lock, if it is held.
func (a *Locks) Release(w *worker.Worker) {
	a.mu.Lock()
	l, ok := a.m[w]
	delete(a.m, w)
	a.mu.Unlock()
	if ok {
		_ = l.Close()
	}
}

// Len is how many locks are held.
func (a *Locks) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.m)
}
