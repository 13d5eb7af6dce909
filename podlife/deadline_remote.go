package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// setDeadlineRemote sets the deadline of the named pod that this Runtime does not manage (see
// Pod.SetActiveDeadline): its manager is asked through its control socket. A pod without a live
// manager is an error wrapping ErrNotFound.
func (r *Runtime) setDeadlineRemote(ctx context.Context, name string, d time.Duration) error {
	if err := checkDeadlineUpdate(name, nil, d); err != nil {
		return fmt.Errorf("set active deadline: %w", err)
	}
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(r.cfg.StateDir, "pods", name, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pod %q: %w", name, ErrNotFound)
		}
		return fmt.Errorf("pod %q: %w", name, err)
	}
	err := ask(ctx, rec.Control, controlRequest{Op: "deadline", Pod: name, Deadline: &d})
	if errors.Is(err, errNoManager) {
		return fmt.Errorf("pod %q: no process manages it (pid %d is gone): %w", name, rec.OwnerPID, ErrNotFound)
	}
	return err
}
