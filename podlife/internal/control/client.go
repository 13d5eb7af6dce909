package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// ErrPeerRefused: the peer of a control connection is neither root nor the socket's owner.
var ErrPeerRefused = errors.New("peer refused")

// ErrNoManager means no process answers on a pod's control socket: its manager is gone.
var ErrNoManager = errors.New("no process manages the pod")

// ErrManagerLost means the manager accepted the connection and then went away before it
// answered (a manager killed while it listens): whether it acted is unknown, and the caller
// decides from its PID whether it is gone.
var ErrManagerLost = errors.New("the pod's manager closed the connection before it answered")

// Ask sends req to the control socket at sock and waits for the answer.
func Ask(ctx context.Context, sock string, req Request) error {
	if sock == "" {
		return ErrNoManager
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoManager, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return fmt.Errorf("control: %w: %w", ErrManagerLost, err)
	}
	var reply Reply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("control: %w: %w", ErrManagerLost, err)
	}
	switch {
	case reply.NotFound:
		return fmt.Errorf("%s: %w", reply.Error, api.ErrNotFound)
	case reply.Invalid:
		return &remoteInvalidError{msg: reply.Error}
	case reply.Error != "":
		return errors.New(reply.Error)
	}
	return nil
}

// Answers reports whether a process serves the control socket.
func Answers(sock string) bool {
	if sock == "" {
		return false
	}
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// remoteInvalidError is a manager's refusal of a request as invalid (Reply.Invalid): its
// message, and errors.Is(err, ErrInvalidSpec).
type remoteInvalidError struct{ msg string }

func (e *remoteInvalidError) Error() string { return e.msg }

// Is makes errors.Is(err, api.ErrInvalidSpec) true.
func (e *remoteInvalidError) Is(target error) bool { return target == api.ErrInvalidSpec }
