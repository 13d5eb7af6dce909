package attempt

import (
	"context"
	"log/slog"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Conn is what an attempt's calls need of the Host: the tasks seam, its answers about the
// connection to containerd and about its own life (see the worker's Host), and where to log.
type Conn struct {
	Tasks tasks.Runtime
	// LostConn reports whether err means containerd went away (and starts the reconnection).
	LostConn func(ctx context.Context, err error) bool
	// Retry runs call until it succeeds or fails for another reason than a lost connection.
	Retry func(ctx context.Context, call func() error) error
	// Disconnected reports whether containerd is away now; ConnUp is closed once it is back.
	Disconnected func() bool
	ConnUp       func() <-chan struct{}
	// Closing is closed when the Runtime is closed; IsClosed reports it.
	Closing  <-chan struct{}
	IsClosed func() bool
	Log      *slog.Logger
}
