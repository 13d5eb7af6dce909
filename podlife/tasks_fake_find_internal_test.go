package podlife

import (
	"context"
	"fmt"

	"github.com/containerd/errdefs"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// The fake's leases and its lookups of containers by label and ID: what adoption, the startup
// GC and the unmanaged paths use (see fakeTasks).

func (f *fakeTasks) CreateLease(_ context.Context, id string, labels map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leased == nil {
		f.leased = map[string]map[string]string{}
	}
	f.leased[id] = labels
	return nil
}

func (f *fakeTasks) DeleteLease(_ context.Context, id string) error {
	f.mu.Lock()
	gate := f.leaseGate
	f.mu.Unlock()
	if gate != nil {
		f.note("delete-lease waits")
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.leased, id)
	return nil
}

func (f *fakeTasks) Containers(_ context.Context, match map[string]string, has ...string) ([]tasks.Found, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []tasks.Found
	for _, p := range f.procs {
		ok := !p.deleted
		for k, v := range match {
			got, set := p.labels[k]
			ok = ok && set && got == v
		}
		for _, k := range has {
			_, set := p.labels[k]
			ok = ok && set
		}
		if ok {
			c := &fakeCtr{p: p}
			out = append(out, tasks.Found{ID: p.id, Labels: p.labels, Image: p.image,
				Handle: func(string) tasks.Container { return c }})
		}
	}
	return out, nil
}

func (f *fakeTasks) LoadContainer(_ context.Context, id, _ string) (tasks.Container, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.procs {
		if p.id == id && !p.deleted {
			return &fakeCtr{p: p}, nil
		}
	}
	return nil, fmt.Errorf("container %s: %w", id, errdefs.ErrNotFound)
}

func (f *fakeTasks) Leases(_ context.Context, key string) ([]tasks.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []tasks.Lease
	for id, labels := range f.leased {
		if _, ok := labels[key]; ok {
			out = append(out, tasks.Lease{ID: id, Labels: labels})
		}
	}
	return out, nil
}
