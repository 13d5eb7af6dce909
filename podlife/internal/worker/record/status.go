package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// PersistStatus rewrites status.json in dir whenever the status changes, until quit is closed,
// or closing is (then it writes the latest status a last time). latest returns the pod's
// status and a channel closed when it changes, taken before the status. Changes that come
// faster than the writes are coalesced: the file always ends with the latest status.
//
// Each version is synced before it is renamed into place, but the rename is not (a pod's start
// writes the file 4 or 5 times, its teardown as often): after a crash of the host the file is
// a whole version, the last or an earlier one, or missing if the first was not durable yet. A
// crash a moment earlier leaves the same with every rename synced: an adopter, which reads the
// file for the containers' restart counts and last states, handles both (see observe). The
// last version written on closing is made durable: it is what other processes know of the pod
// from then on.
func PersistStatus(dir string, latest func() (status any, changed <-chan struct{}), quit, closing <-chan struct{}, log *slog.Logger) {
	path := filepath.Join(dir, StatusFile)
	var last []byte
	write := func(status any) {
		b, err := json.Marshal(status)
		if err == nil && !bytes.Equal(b, last) {
			failpoint.Hit("status.write")
			if err := poddir.ReplaceWhole(path, b); err != nil && !errors.Is(err, fs.ErrNotExist) {
				log.Debug("persist status", "err", err)
			}
			last = b
			failpoint.Hit("status.written")
		}
	}
	for {
		status, ch := latest()
		write(status)
		select {
		case <-ch:
		case <-quit:
			return
		case <-closing:
			// A change may have come with the close (select picks at random): the file is what
			// other processes know of the pod from now on, so it ends with the latest status.
			status, _ := latest()
			write(status)
			if last != nil {
				if err := poddir.SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
					log.Debug("persist status", "err", err)
				}
			}
			return
		}
	}
}
