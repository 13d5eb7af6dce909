package teardown

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// CutCreates are a removed pod's container instances without a task, noted before the removal
// deletes them, and the shims started for them: each may be a task create cut by its manager's
// death (SIGKILL during NewTask). containerd undoes such a create: it asks the shim to delete
// the task and to shut down, and removes the task's bundle. What is left depends on when the
// shim got there:
//   - its start cut (before it serves): the shim waits forever for a reader of its log FIFO,
//     its socket listening, answering nothing;
//   - its create ended after the undo, in a shim that served another task then (so it refused
//     the shutdown): the shim keeps the task containerd does not know (its logger, its `runc
//     init` or its exit) and never exits: the runc shim exits only on a shutdown that finds it
//     serving nothing, and containerd sends those only for the tasks it knows;
//   - its create cut by the shim's exit: runc, killed with it, leaves the cgroups it had made.
//
// So the removal ends the pod's shims itself (end): before it deletes the instances'
// containers (NoteCutCreates, once no instance has a task: the shim may still have a task's
// rootfs mounted and its `runc init` in the cgroup), again after (Settle), and then sweeps
// their cgroups.
type CutCreates struct {
	ids     []string
	sockets []string
	cgroups []tasks.Container
	shims   []*ctrd.ShimProcess
}

// Instances is what the removal noted of a pod's instances (by the worker, on its loop).
type Instances struct {
	// Namespace is the Runtime's containerd namespace (its shims' command lines name it).
	Namespace string
	// Started are the IDs a shim of the pod may have been started for: its shim group's and
	// every instance's.
	Started []string
	// Cut are the instances without a task (a create may have been cut).
	Cut []Cut
	// AnyTask says whether any instance, or the pause, still has a task.
	AnyTask bool
	// SharedShim: the pod's shim is shared with other pods (Config.Shims ShimShared); it is
	// never ended here: it serves their tasks, and its own rule ends it once it serves none.
	SharedShim bool
}

// Cut is an instance without a task.
type Cut struct {
	ID string
	// Socket is the socket of the shim that would run it.
	Socket string
	// Cgroup is its containerd container, for its cgroup.
	Cgroup tasks.Container
}

// NoteCutCreates notes the pod's instances without a task and holds the shim processes
// started for any of the pod's instances. If no instance has a task, nor the pause (the stop
// deleted them all), it ends those shims (within CutCreateSettle of ctx) before the removal
// deletes the instances' containers.
func NoteCutCreates(ctx context.Context, in Instances, log *slog.Logger) CutCreates {
	var cc CutCreates
	for _, c := range in.Cut {
		cc.ids = append(cc.ids, c.ID)
		cc.cgroups = append(cc.cgroups, c.Cgroup)
		if !slices.Contains(cc.sockets, c.Socket) {
			cc.sockets = append(cc.sockets, c.Socket)
		}
	}
	if !in.SharedShim {
		cc.shims = ctrd.FindShims(in.Namespace, in.Started)
	}
	if !in.AnyTask {
		ctx, cancel := context.WithTimeout(ctx, CutCreateSettle)
		defer cancel()
		cc.end(ctx, log)
	}
	return cc
}

// Settle ends the shims, then sweeps the cgroups in every hierarchy. The removal has deleted
// every task containerd knows (if it could not delete one, the shim serving it is killed too:
// containerd then cleans the task up as a dead shim's).
func (cc CutCreates) Settle(ctx context.Context, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, CutCreateSettle)
	defer cancel()
	cc.end(ctx, log)
	for _, s := range cc.shims {
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

// end makes the pod's shims exit, the tasks containerd knows being deleted: each round asks
// the shim on each socket to delete the tasks of cc.ids it serves and to shut down, and waits a
// moment for the shims' exit (a create in flight registers its task after a round). A shim is
// killed (its children first: a logger, a `runc init`), as containerd kills a shim it gives up
// on, when ctx ends first, or at once when it cannot delete such a task (containerd removed the
// task's bundle, where the runc shim has runc write its log: every runc call for the task
// fails, its delete included) or does not answer (its start was cut).
func (cc CutCreates) end(ctx context.Context, log *slog.Logger) {
	for {
		live := cc.shims[:0:0]
		for _, s := range cc.shims {
			if !s.Exited() {
				live = append(live, s)
			}
		}
		if len(live) == 0 {
			return
		}
		var stuck error
		for _, sock := range cc.sockets {
			rctx, rcancel := context.WithTimeout(ctx, cutShimAnswer)
			deleted, err := ctrd.ShimDeleteUnknown(rctx, sock, cc.ids)
			rcancel()
			if len(deleted) > 0 {
				log.Warn("remove: deleted in the pod's shim tasks containerd did not know (creates cut by their manager's death)", "ids", deleted)
			}
			if err != nil && ctx.Err() == nil {
				stuck = errors.Join(stuck, err)
			}
		}
		if len(cc.sockets) == 0 {
			stuck = errors.New("no container of the pod without a task: a shim started for it that is left serves nothing")
		}
		if stuck == nil {
			wctx, wcancel := context.WithTimeout(ctx, cutShimRound)
			_ = live[0].Wait(wctx)
			wcancel()
			if ctx.Err() == nil {
				continue
			}
		}
		for _, s := range live {
			if s.Exited() {
				continue
			}
			log.Warn("remove: the pod's shim will not exit: killing it", "pid", s.PID(), "id", s.ID(), "why", stuck, "ctx", ctx.Err())
			if err := s.Kill(); err != nil {
				log.Warn("remove: kill the pod's shim", "err", err)
			}
			wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), cutShimRound)
			if err := s.Wait(wctx); err != nil {
				log.Warn("remove: the pod's shim still runs", "pid", s.PID(), "err", err)
			}
			wcancel()
		}
		for _, sock := range cc.sockets {
			tasks.RemoveStaleShimSocket(sock, log) // a killed shim leaves its socket
		}
		return
	}
}

// CutCreateSettle bounds the wait for the shims to exit: one whose tasks are deleted exits at
// once.
const CutCreateSettle = 5 * time.Second

// cutShimRound is how long each round of CutCreates.end waits for a shim's exit.
const cutShimRound = 200 * time.Millisecond

// cutShimAnswer bounds a shim's answer in CutCreates.end: one that serves answers at once.
const cutShimAnswer = time.Second
