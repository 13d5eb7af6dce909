package ctrd

import "sync"

// runningPIDs remembers the PID of each running task Sample saw, so that the next sample of it
// reads its cgroup without asking containerd (and its shim) for the task's state.
type runningPIDs struct {
	mu   sync.Mutex
	pids map[string]uint32
}

// maxRunningPIDs bounds the memory of tasks sampled once and deleted since: past it, all are
// forgotten (and asked of containerd again).
const maxRunningPIDs = 8192

func (r *runningPIDs) get(id string) (uint32, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, ok := r.pids[id]
	return pid, ok
}

func (r *runningPIDs) set(id string, pid uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pids == nil || len(r.pids) >= maxRunningPIDs {
		r.pids = map[string]uint32{}
	}
	r.pids[id] = pid
}

func (r *runningPIDs) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pids, id)
}
