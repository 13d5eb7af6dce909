package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"time"

	"github.com/containerd/errdefs"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// errTaskLost: containerd answered again without the instance's task and its shim had not
// reported the exit, so the exit status is unknown.
var errTaskLost = errors.New("the container's task is gone")

// shimExit is what the shim said when asked directly for an exit.
type shimExit struct {
	code uint32
	at   time.Time
	err  error
}

// awaitExit returns the exit status and time of an instance's process, following it across
// losses of the connection to containerd. While containerd is away, the shim, which keeps
// running and knows the process, is asked directly: an exit meanwhile is reported with its real
// status and time (containerd 2.x drops, when it starts again, the task of a shim whose process
// has exited, so asking it afterwards would be too late). Once containerd answers again, the
// task is loaded and waited on again. It fails with errTaskLost if the task is gone and the shim
// did not tell, and with ErrClosed if the runtime was closed.
func (c *Container) awaitExit(inst *instance) (uint32, time.Time, error) {
	p := c.pod
	r := p.rt
	ctx := p.watchCtx // Close ends the wait
	var task tasks.Task
	var ch <-chan ctrd.ExitStatus
	if !p.do(func() { task, ch = inst.task, inst.exitCh }) {
		return 0, time.Time{}, ErrClosed // the loop has ended: the runtime was closed
	}
	delay := ReconnectInitial
	failed := func(err error) <-chan ctrd.ExitStatus {
		f := make(chan ctrd.ExitStatus, 1)
		f <- *ctrd.NewExitStatus(ctrd.UnknownExitStatus, time.Time{}, err)
		return f
	}
	for {
		st := <-ch
		code, at, err := st.Result()
		if err == nil {
			return code, at, nil
		}
		if r.IsClosed() {
			return 0, time.Time{}, ErrClosed
		}
		if !r.LostConn(ctx, err) {
			// containerd answered, with an error: wait on the task again a little later.
			p.log.Warn("waiting on a container's task failed; waiting again", "container", c.spec.Name, "err", err)
			select {
			case <-time.After(delay):
			case <-r.Closing:
				return 0, time.Time{}, ErrClosed
			}
			delay = min(2*delay, ReconnectMax)
		}
		var fromShim chan shimExit
		sctx, cancel := context.WithCancel(ctx)
		if r.Disconnected() {
			fromShim = make(chan shimExit, 1)
			go func() {
				code, at, err := c.shimWait(sctx, inst)
				fromShim <- shimExit{code, at, err}
			}()
		}
		select {
		case e := <-fromShim:
			if e.err == nil {
				cancel()
				p.log.Info("the shim reported the exit while containerd is away", "container", c.spec.Name, "code", e.code)
				return e.code, e.at, nil
			}
			p.log.Debug("asking the shim for the exit failed", "container", c.spec.Name, "err", e.err)
			fromShim = nil
			select {
			case <-r.ConnUp():
			case <-r.Closing:
				cancel()
				return 0, time.Time{}, ErrClosed
			}
		case <-r.ConnUp():
		case <-r.Closing:
			cancel()
			return 0, time.Time{}, ErrClosed
		}
		var s ctrd.Status
		err = r.Retry(ctx, func() (err error) {
			s, err = task.Status(ctx)
			return err
		})
		switch {
		case errdefs.IsNotFound(err):
			// The shim may have answered in the meantime (containerd shut it down after
			// dropping the task, which ends the call otherwise).
			if fromShim != nil {
				select {
				case e := <-fromShim:
					if e.err == nil {
						cancel()
						return e.code, e.at, nil
					}
				case <-time.After(2 * time.Second):
				}
			}
			cancel()
			return ctrd.UnknownExitStatus, time.Now(), errTaskLost
		case err != nil:
			cancel()
			if r.IsClosed() {
				return 0, time.Time{}, ErrClosed
			}
			ch = failed(err)
			continue
		}
		cancel()
		p.log.Info("following a container again", "container", c.spec.Name, "id", inst.id, "status", s.Status)
		if ch, err = task.Wait(ctx); err != nil {
			ch = failed(err)
		}
	}
}

// shimWait asks the instance's shim directly, over its ttrpc socket, for the exit of the
// instance's process (for use while containerd is away). It tries the task API v3 (shims of
// containerd 2.x), then v2 (1.6, 1.7).
func (c *Container) shimWait(ctx context.Context, inst *instance) (uint32, time.Time, error) {
	return ctrd.ShimWait(ctx, c.pod.instanceShimSocket(inst), inst.id)
}

// instanceShimSocket is the socket of the shim that runs inst: the pod's shim group's, or with
// one shim per container, the one derived from the instance's own ID (the formula of
// containerd's shim manager, see podsandbox.Shim.SocketOf).
func (p *Worker) instanceShimSocket(inst *instance) string {
	group := p.shimGroup()
	if group == "" {
		group = inst.id
	}
	return p.shim.SocketOf(group)
}

// Back-off between attempts to reach containerd (or a shim) again.
const (
	ReconnectInitial = 100 * time.Millisecond
	ReconnectMax     = 5 * time.Second
)
