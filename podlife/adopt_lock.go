package podlife

import (
	"io"
	"sync"
)

// adoptLocks are the adoption locks (poddir.LockAdoption) this Runtime holds, one per pod it
// adopted: taken before the adoption, held while the Runtime manages the pod, and released when
// the pod is removed or left unmanaged again (forget) or the Runtime closed (Close, once the
// pod's loop ended), so that no other process adopts the pod meanwhile. The zero value holds
// none. Its lock guards the map only: a lock is closed outside it.
type adoptLocks struct {
	mu sync.Mutex
	m  map[*podWorker]io.Closer
}

// hold keeps l, w's adoption lock, until release.
func (a *adoptLocks) hold(w *podWorker, l io.Closer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[*podWorker]io.Closer{}
	}
	a.m[w] = l
}

// release closes w's adoption lock, if this Runtime holds one.
func (a *adoptLocks) release(w *podWorker) {
	a.mu.Lock()
	l, ok := a.m[w]
	delete(a.m, w)
	a.mu.Unlock()
	if ok {
		_ = l.Close()
	}
}
