package podlife

import (
	"context"
	"fmt"

	"github.com/containerd/errdefs"
)

// The fake's leases and its lookups of containers by label and ID: what adoption, the startup
// GC and the unmanaged paths use (see fakeTasks).

func (f *fakeTasks) createLease(_ context.Context, id string, labels map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leased == nil {
		f.leased = map[string]map[string]string{}
	}
	f.leased[id] = labels
	return nil
}

func (f *fakeTasks) deleteLease(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.leased, id)
	return nil
}

func (f *fakeTasks) containers(_ context.Context, match map[string]string, has ...string) ([]foundContainer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []foundContainer
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
			out = append(out, foundContainer{id: p.id, labels: p.labels, image: p.image,
				handle: func(string) ctrHandle { return c }})
		}
	}
	return out, nil
}

func (f *fakeTasks) loadContainer(_ context.Context, id, _ string) (ctrHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.procs {
		if p.id == id && !p.deleted {
			return &fakeCtr{p: p}, nil
		}
	}
	return nil, fmt.Errorf("container %s: %w", id, errdefs.ErrNotFound)
}

func (f *fakeTasks) leases(_ context.Context, key string) ([]foundLease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []foundLease
	for id, labels := range f.leased {
		if _, ok := labels[key]; ok {
			out = append(out, foundLease{id: id, labels: labels})
		}
	}
	return out, nil
}
