package attempt

import (
	"context"
	"errors"
	"time"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// ErrTaskLost: containerd answered again without the instance's task and its shim had not
// reported the exit, so the exit status is unknown.
var ErrTaskLost = errors.New("the container's task is gone")

// Back-off between attempts to reach containerd (or a shim) again.
const (
	ReconnectInitial = 100 * time.Millisecond
	ReconnectMax     = 5 * time.Second
)

// Waited is the attempt whose exit AwaitExit follows.
type Waited struct {
	ID   string // its containerd ID (the shim's task)
	Name string // its container's name, for the log
	Task tasks.Task
	// Exit is the channel of Task's Wait, made at the create (or the adoption).
	Exit <-chan ctrd.ExitStatus
	// ShimSocket returns the socket of the shim that runs it, asked while containerd is away.
	ShimSocket func() string
}

// shimExit is what the shim said when asked directly for an exit.
type shimExit struct {
	code uint32
	at   time.Time
	err  error
}

// AwaitExit returns the exit status and time of an attempt's process, following it across
// losses of the connection to containerd; ctx ending (the Runtime's close) ends the wait. While
// containerd is away, the shim, which keeps running and knows the process, is asked directly:
// an exit meanwhile is reported with its real status and time (containerd 2.x drops, when it
// starts again, the task of a shim whose process has exited, so asking it afterwards would be
// too late). Once containerd answers again, the task is loaded and waited on again. It fails
// with ErrTaskLost if the task is gone and the shim did not tell, and with api.ErrClosed if the
// runtime was closed.
func AwaitExit(ctx context.Context, conn Conn, w Waited) (uint32, time.Time, error) {
	task, ch := w.Task, w.Exit
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
		if conn.IsClosed() {
			return 0, time.Time{}, api.ErrClosed
		}
		if !conn.LostConn(ctx, err) {
			// containerd answered, with an error: wait on the task again a little later.
			conn.Log.Warn("waiting on a container's task failed; waiting again", "container", w.Name, "err", err)
			select {
			case <-time.After(delay):
			case <-conn.Closing:
				return 0, time.Time{}, api.ErrClosed
			}
			delay = min(2*delay, ReconnectMax)
		}
		var fromShim chan shimExit
		sctx, cancelShim := context.WithCancel(ctx)
		// cancel ends the ask of the shim and waits for it: no goroutine outlives the call.
		var shimDone chan struct{}
		cancel := func() {
			cancelShim()
			if shimDone != nil {
				<-shimDone
			}
		}
		if conn.Disconnected() {
			fromShim = make(chan shimExit, 1)
			shimDone = make(chan struct{})
			go func() {
				defer close(shimDone)
				code, at, err := shimWait(sctx, w)
				fromShim <- shimExit{code, at, err}
			}()
		}
		select {
		case e := <-fromShim:
			if e.err == nil {
				cancel()
				conn.Log.Info("the shim reported the exit while containerd is away", "container", w.Name, "code", e.code)
				return e.code, e.at, nil
			}
			conn.Log.Debug("asking the shim for the exit failed", "container", w.Name, "err", e.err)
			fromShim = nil
			select {
			case <-conn.ConnUp():
			case <-conn.Closing:
				cancel()
				return 0, time.Time{}, api.ErrClosed
			}
		case <-conn.ConnUp():
		case <-conn.Closing:
			cancel()
			return 0, time.Time{}, api.ErrClosed
		}
		var s ctrd.Status
		err = conn.Retry(ctx, func() (err error) {
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
			return ctrd.UnknownExitStatus, time.Now(), ErrTaskLost
		case err != nil:
			cancel()
			if conn.IsClosed() {
				return 0, time.Time{}, api.ErrClosed
			}
			ch = failed(err)
			continue
		}
		cancel()
		conn.Log.Info("following a container again", "container", w.Name, "id", w.ID, "status", s.Status)
		if ch, err = task.Wait(ctx); err != nil {
			ch = failed(err)
		}
	}
}

// shimWait asks the attempt's shim directly, over its ttrpc socket, for the exit of the
// attempt's process (for use while containerd is away). It tries the task API v3 (shims of
// containerd 2.x), then v2 (1.6, 1.7).
func shimWait(ctx context.Context, w Waited) (uint32, time.Time, error) {
	return ctrd.ShimWait(ctx, w.ShimSocket(), w.ID)
}
