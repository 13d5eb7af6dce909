package podlife

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// cutCreates are a removed pod's container instances without a task, noted before the removal
// deletes them: each may be a task create cut by its manager's death (SIGKILL during NewTask),
// which containerd undoes after the removal looked (it shuts the shim down, and runc, killed
// with it, leaves the cgroups it had made). Their cgroups are swept once the shim that ran the
// create is gone: then no create of theirs is in flight (see settle).
type cutCreates struct {
	cgroups []tasks.Container
	shims   []*ctrd.ShimProcess
}

// cutCreates notes the pod's instances without a task and holds the process of the shim that
// runs (or ran) their creates, if one still serves.
func (p *podWorker) cutCreates(all []*Container) cutCreates {
	var cc cutCreates
	sockets := map[string]bool{}
	for _, c := range all {
		var live []*instance
		p.do(func() { live = append([]*instance(nil), c.live...) })
		for _, i := range live {
			var task tasks.Task
			i.own(func() { task = i.task })
			if task != nil || i.cg == nil {
				continue
			}
			cc.cgroups = append(cc.cgroups, i.cg)
			sockets[p.instanceShimSocket(i)] = true
		}
	}
	for s := range sockets {
		shim, err := ctrd.OpenShim(s)
		if err != nil {
			p.log.Warn("remove: the shim of a container without a task", "socket", s, "err", err)
			continue
		}
		if shim != nil {
			cc.shims = append(cc.shims, shim)
		}
	}
	return cc
}

// settle waits, at most cutCreateSettle, for the shims to exit (the removal has deleted every
// task: containerd shuts them down), then sweeps the cgroups in every hierarchy.
func (cc cutCreates) settle(ctx context.Context, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, cutCreateSettle)
	defer cancel()
	for _, s := range cc.shims {
		if err := s.Wait(ctx); err != nil {
			log.Warn("remove: the shim of a container without a task still runs", "err", err)
		}
		_ = s.Close()
	}
	var errs []error
	for _, cg := range cc.cgroups {
		if err := cg.SweepCgroup(); err != nil {
			errs = append(errs, fmt.Errorf("cgroup left behind: %w", err))
		}
	}
	return errors.Join(errs...)
}

// cutCreateSettle bounds settle's wait for a shim: one whose tasks are deleted exits at once.
const cutCreateSettle = 5 * time.Second
