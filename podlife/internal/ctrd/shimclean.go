package ctrd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	taskv2 "github.com/containerd/containerd/api/runtime/task/v2"
	taskv3 "github.com/containerd/containerd/api/runtime/task/v3"
	tasktypes "github.com/containerd/containerd/api/types/task"
	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ShimDeleteUnknown asks the shim serving on socket directly, over ttrpc, to delete each task
// of ids it still serves, then to shut down; it reports the IDs it deleted, and an error naming
// each task it has and could not delete. It is for tasks containerd does not know: a NewTask
// cut by its client's death, whose create the shim finished after containerd had undone it.
// containerd's undo asks the shim to delete the task (not there yet: NotFound) and to shut down
// (refused while the shim serves another task), and removes the task's bundle; the shim then
// goes on serving the task (its logger, its `runc init` or its exit) and never exits: the runc
// shim exits only on a shutdown request that finds it serving no task, and containerd sends
// those only for the tasks it knows. Such a task may not be deletable at all: the runc shim
// runs runc with its log in the bundle, so with the bundle gone every runc call for it fails.
//
// A shim that serves nothing on socket is not an error; a shim that still serves other tasks
// refuses the shutdown, so calling this once the caller's tasks are deleted is what makes it
// exit.
func ShimDeleteUnknown(ctx context.Context, socket string, ids []string) ([]string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, nil // no shim there
	}
	api, closeAPI, err := shimClient(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("shim %s: %w: %w", socket, ErrShimNotAnswering, err)
	}
	defer closeAPI()
	var deleted []string
	var errs []error
	for _, id := range ids {
		err := deleteTask(ctx, api, id)
		switch {
		case err == nil:
			deleted = append(deleted, id)
		case !gone(err):
			errs = append(errs, fmt.Errorf("shim: task %s: %w", id, err))
		}
	}
	if err := api.shutdown(ctx); err != nil && !errors.Is(err, ttrpc.ErrClosed) {
		errs = append(errs, fmt.Errorf("shim: shutdown: %w", err))
	}
	return deleted, errors.Join(errs...)
}

// deleteTask deletes the task id in the shim, killing its process first if it has not exited;
// an error for which gone holds means the shim does not serve it.
func deleteTask(ctx context.Context, api shimAPI, id string) error {
	stopped, err := api.stopped(ctx, id)
	if err != nil {
		return err
	}
	if !stopped {
		if err := api.kill(ctx, id); err != nil && !gone(err) {
			return fmt.Errorf("kill: %w", err)
		}
		for !stopped {
			select {
			case <-ctx.Done():
				return fmt.Errorf("wait for its exit: %w", ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
			if stopped, err = api.stopped(ctx, id); err != nil {
				return err
			}
		}
	}
	if err := api.delete(ctx, id); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

// gone reports whether err says the shim does not serve the task (any more), or is gone.
func gone(err error) bool {
	return status.Code(err) == codes.NotFound || errors.Is(err, ttrpc.ErrClosed)
}

// ErrShimNotAnswering is wrapped by ShimDeleteUnknown's error when a process listens on the
// socket and does not answer: a shim not serving yet, and in a removal never will (see
// FindShims).
var ErrShimNotAnswering = errors.New("the shim does not answer")

// shimClient is the task API the shim on conn serves (v3: shims of containerd 2.x; v2: 1.6 and
// 1.7).
func shimClient(ctx context.Context, conn net.Conn) (shimAPI, func(), error) {
	tc := ttrpc.NewClient(conn)
	closeAPI := func() { _ = tc.Close() }
	var api shimAPI = shimV3{taskv3.NewTTRPCTaskClient(tc)}
	if _, err := api.pid(ctx); status.Code(err) == codes.Unimplemented {
		api = shimV2{taskv2.NewTTRPCTaskClient(tc)}
	} else if err != nil {
		closeAPI()
		return nil, nil, err
	}
	return api, closeAPI, nil
}

// shimAPI is what this package asks of a shim directly, in either version of the task API.
type shimAPI interface {
	pid(ctx context.Context) (int, error) // the shim's own PID: an answer
	stopped(ctx context.Context, id string) (bool, error)
	kill(ctx context.Context, id string) error // SIGKILL, every process of the task
	delete(ctx context.Context, id string) error
	shutdown(ctx context.Context) error
}

type shimV3 struct{ c taskv3.TTRPCTaskService }

func (s shimV3) pid(ctx context.Context) (int, error) {
	r, err := s.c.Connect(ctx, &taskv3.ConnectRequest{})
	return int(r.GetShimPid()), err
}

func (s shimV3) stopped(ctx context.Context, id string) (bool, error) {
	r, err := s.c.State(ctx, &taskv3.StateRequest{ID: id})
	return r.GetStatus() == tasktypes.Status_STOPPED, err
}

func (s shimV3) kill(ctx context.Context, id string) error {
	_, err := s.c.Kill(ctx, &taskv3.KillRequest{ID: id, Signal: uint32(syscall.SIGKILL), All: true})
	return err
}

func (s shimV3) delete(ctx context.Context, id string) error {
	_, err := s.c.Delete(ctx, &taskv3.DeleteRequest{ID: id})
	return err
}

func (s shimV3) shutdown(ctx context.Context) error {
	_, err := s.c.Shutdown(ctx, &taskv3.ShutdownRequest{})
	return err
}

type shimV2 struct{ c taskv2.TTRPCTaskService }

func (s shimV2) pid(ctx context.Context) (int, error) {
	r, err := s.c.Connect(ctx, &taskv2.ConnectRequest{})
	return int(r.GetShimPid()), err
}

func (s shimV2) stopped(ctx context.Context, id string) (bool, error) {
	r, err := s.c.State(ctx, &taskv2.StateRequest{ID: id})
	return r.GetStatus() == tasktypes.Status_STOPPED, err
}

func (s shimV2) kill(ctx context.Context, id string) error {
	_, err := s.c.Kill(ctx, &taskv2.KillRequest{ID: id, Signal: uint32(syscall.SIGKILL), All: true})
	return err
}

func (s shimV2) delete(ctx context.Context, id string) error {
	_, err := s.c.Delete(ctx, &taskv2.DeleteRequest{ID: id})
	return err
}

func (s shimV2) shutdown(ctx context.Context) error {
	_, err := s.c.Shutdown(ctx, &taskv2.ShutdownRequest{})
	return err
}
