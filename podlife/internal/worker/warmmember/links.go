package warmmember

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/layout"
)

// SweepLinks removes the links taken members left in the state dir's pool directory (Claim
// leaves one at the member's path, to the pod's directory) whose pod directory is gone. The
// removal of any pod calls it once its directory is deleted: the pod may be one taken from a
// member by a process that died, adopted by this one, which does not know it was a member.
func SweepLinks(stateDir string) {
	root := layout.PoolDir(stateDir)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		path := filepath.Join(root, e.Name())
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(path)
		}
	}
}
