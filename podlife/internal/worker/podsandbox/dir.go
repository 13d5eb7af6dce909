package podsandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// MakeDir creates the directory of a new pod of that name in the state dir, under the pods'
// shared lock (poddir.Make), and returns it with the lock's release: call it once the pod's
// pod.json is written. If the directory exists it fails with api.ErrAlreadyExists.
func MakeDir(stateDir, name string) (dir string, release func(), err error) {
	dir = filepath.Join(layout.PodsDir(stateDir), name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", nil, fmt.Errorf("podlife: state dir: %w", err)
	}
	release, err = poddir.Make(stateDir, dir)
	switch {
	case errors.Is(err, os.ErrExist):
		return "", nil, fmt.Errorf("pod %q: state directory %s exists (a pod of that name exists or was not removed): %w", name, dir, api.ErrAlreadyExists)
	case err != nil:
		return "", nil, fmt.Errorf("podlife: pod dir: %w", err)
	}
	return dir, release, nil
}
