package warmpool

import (
	"context"
	"errors"
	"slices"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker"
)

// Take gives Run's pod (spec admitted, its name reserved) a ready member of its pool, if
// there is one, and starts it (see claimMember): the pod it returns is registered and its
// start sequence runs. It returns nil and no error if there is none or none could be claimed:
// the pod then starts cold, its name still reserved. On an error (api.ErrClosed), the name is
// given back.
func (m *Manager) Take(ctx context.Context, spec, recorded api.PodSpec) (*worker.Worker, error) {
	ps := m.pools.Load()
	if ps == nil || Takeable(spec) != nil {
		return nil, nil
	}
	key, err := Key(spec)
	if err != nil {
		return nil, nil
	}
	for {
		w, ok := ps.Take(key)
		if !ok {
			return nil, nil
		}
		if err := m.claimMember(ctx, w, spec, recorded); err != nil {
			if errors.Is(err, api.ErrClosed) {
				m.d.Unreserve(spec.Name)
				return nil, err
			}
			m.d.Log.Info("warm pool: member not taken; trying the next", "pod", spec.Name, "member", w.Name(), "err", err)
			m.discardLater(w, err.Error())
			m.wake() // its replacement (of the new image, say)
			continue
		}
		m.afterStart(w.Started())
		return w, nil
	}
}

// cloneSpec copies spec's container lists, which a pod's containers point into.
func cloneSpec(spec api.PodSpec) api.PodSpec {
	spec.InitContainers = slices.Clone(spec.InitContainers)
	spec.Containers = slices.Clone(spec.Containers)
	return spec
}
