// Package shimgroup assigns pods to shared runc shims (podlife's Config.Shims "shared"): up to
// a number of pods per shim, through containerd's shim grouping (the OCI annotation
// io.containerd.runc.v2.group), and serialises the task creations that may start a group's
// shim, since two racing starts in containerd's runc shim manager leave a shim that serves
// nothing. It must not import package podlife.
package shimgroup

import (
	"context"
	"sync"
)

// Groups is a Runtime's shared shim groups: which pods each has.
type Groups struct {
	perShim int

	mu     sync.Mutex
	groups map[string]*group // by group ID
	order  []string          // group IDs, oldest first: new pods fill the oldest with room
	of     map[string]string // pod UID -> group ID
}

type group struct {
	pods map[string]bool
	gate chan struct{} // held by the task creation that may start the shim
}

// New returns groups of at most perShim pods (at least 1).
func New(perShim int) *Groups {
	return &Groups{perShim: max(1, perShim), groups: map[string]*group{}, of: map[string]string{}}
}

// Acquire returns the group of pod uid: the one it is in, else the oldest with room, else a new
// group named newID (the ID of the pod's container whose task is to start the shim: containerd's
// runc shim removes, when it exits, the socket derived from the ID of the task that started it).
func (g *Groups) Acquire(uid, newID string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if id, ok := g.of[uid]; ok {
		return id
	}
	for _, id := range g.order {
		if gr := g.groups[id]; len(gr.pods) < g.perShim {
			return g.join(id, uid)
		}
	}
	return g.join(newID, uid)
}

// Adopt puts pod uid in group id (an adopted pod's recorded group), whatever its size, and
// returns id.
func (g *Groups) Adopt(id, uid string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.leave(uid)
	return g.join(id, uid)
}

// Release takes pod uid out of group id and reports whether no pod this Groups knows of is left
// in it (its shim, once its tasks are deleted, exits). It may be called more than once.
func (g *Groups) Release(id, uid string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.of[uid] == id {
		g.leave(uid)
	}
	gr, ok := g.groups[id]
	return !ok || len(gr.pods) == 0
}

// Size is the number of pods in group id.
func (g *Groups) Size(id string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gr, ok := g.groups[id]; ok {
		return len(gr.pods)
	}
	return 0
}

// Start runs fn, a task creation in group id. If the group's shim answers (answers), fn runs at
// once; otherwise it runs alone among the group's creations until it returns (it starts the
// shim, or finds it started by the one before). ctx ends the wait, not fn.
func (g *Groups) Start(ctx context.Context, id string, answers func() bool, fn func() error) error {
	if answers() {
		return fn()
	}
	gate := g.gate(id)
	select {
	case gate <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-gate }()
	return fn()
}

func (g *Groups) gate(id string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.get(id).gate
}

func (g *Groups) get(id string) *group {
	gr, ok := g.groups[id]
	if !ok {
		gr = &group{pods: map[string]bool{}, gate: make(chan struct{}, 1)}
		g.groups[id] = gr
		g.order = append(g.order, id)
	}
	return gr
}

func (g *Groups) join(id, uid string) string {
	g.get(id).pods[uid] = true
	g.of[uid] = id
	return id
}

// leave takes uid out of its group; an empty group is forgotten (its next pod starts a new
// shim under a new group ID).
func (g *Groups) leave(uid string) {
	id, ok := g.of[uid]
	if !ok {
		return
	}
	delete(g.of, uid)
	gr := g.groups[id]
	delete(gr.pods, uid)
	if len(gr.pods) > 0 {
		return
	}
	delete(g.groups, id)
	for i, o := range g.order {
		if o == id {
			g.order = append(g.order[:i], g.order[i+1:]...)
			break
		}
	}
}
