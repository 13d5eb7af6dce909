package teardown

import (
	"context"
	"log/slog"

	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// EndShims ends the shims started for the containers ids (of namespace) once the tasks
// containerd knew of them are deleted, as the removal's CutCreates does: a shim that still
// serves a task containerd does not know (a create cut by its manager's death, in a shim that
// served another task then) is asked to delete it and to shut down, and killed if it does not
// exit within CutCreateSettle of ctx. sockets are the sockets those shims may serve. The
// startup garbage collection calls it for a warm pool member whose process died: it has no
// pod to remove, and no record of which create was cut. A shim that has exited is not looked
// at: it returns at once when every shim is gone.
func EndShims(ctx context.Context, namespace string, ids, sockets []string, log *slog.Logger) {
	cc := CutCreates{ids: ids, sockets: sockets, shims: ctrd.FindShims(namespace, ids)}
	defer func() {
		for _, s := range cc.shims {
			_ = s.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, CutCreateSettle)
	defer cancel()
	cc.end(ctx, log)
}
