package warmpool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/worker/warmmember"
)

// Member is a warm pool member's record (layout.PoolMemberFile in its directory): what ps and
// the startup garbage collection read of it.
type Member struct {
	ID       string    `json:"id"`       // its directory's name under layout.PoolDir
	UID      string    `json:"uid"`      // the pod UID it was made with (its containers' label)
	Key      string    `json:"key"`      // its pool's key (see Key)
	Created  time.Time `json:"created"`  // when it was begun
	OwnerPID int       `json:"ownerPID"` // the process that keeps it
	// Images are the image IDs (digests) its containers were created from, by container.
	Images map[string]string `json:"images,omitempty"`
	Ready  bool              `json:"ready"` // every container created (else being made)
}

// Write records m in dir.
func (m Member) Write(dir string) error {
	return poddir.WriteJSON(filepath.Join(dir, layout.PoolMemberFile), m)
}

// Found is a member found on disk by List.
type Found struct {
	Member
	Dir  string
	Live bool // the process that keeps it holds its lock
}

// List reads the members of the state dir's pool directory, by creation time. A directory
// whose record cannot be read yet (being made) is left out.
func List(stateDir string) ([]Found, error) {
	root := layout.PoolDir(stateDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Found
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 || poddir.IsRemoving(e.Name()) {
			continue // a taken member's link to its pod, or one being deleted
		}
		dir := filepath.Join(root, e.Name())
		var m Member
		if err := poddir.ReadJSON(filepath.Join(dir, layout.PoolMemberFile), &m); err != nil {
			continue
		}
		f := Found{Member: m, Dir: dir, Live: true}
		if lock, err := poddir.LockAdoption(dir); err == nil {
			f.Live = false
			_ = lock.Close()
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// SweepLinks removes the links taken members left in the pool directory whose pod directory
// is gone (see warmmember.SweepLinks).
func SweepLinks(stateDir string) { warmmember.SweepLinks(stateDir) }
