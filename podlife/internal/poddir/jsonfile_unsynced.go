package poddir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// WriteJSONUnsynced replaces path with v's JSON as WriteJSON does, except that nothing is synced:
// other processes (and this one after a kill -9) see the old content or the new, never a part,
// but after a crash of the host the file may be missing, empty or cut short until SyncWritten
// has returned. The new content replaces the old only once ready is closed (nil: at once). It
// returns the file, open, for SyncWritten.
func WriteJSONUnsynced(path string, v any, ready <-chan struct{}) (*os.File, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, err
	}
	if ready != nil {
		<-ready
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, err
	}
	return f, nil
}

// SyncWritten makes what WriteJSONUnsynced wrote to f (now at path) durable, the file's content
// and then its name, and closes f.
func SyncWritten(f *os.File, path string) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// IsTorn reports whether err, ReadJSON's, says the file is empty or its JSON cut short: what
// WriteJSONUnsynced may leave after a crash of the host, and never what a process writing with
// these functions leaves. (The startup garbage collection removes such a pod directory only
// with proof that its pod died with the host, see gc's diedWithHost: a record cut short by other
// means may be a live pod's.)
func IsTorn(err error) bool {
	var syn *json.SyntaxError
	return errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end of JSON input")
}
