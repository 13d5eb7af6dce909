package poddir

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// WriteJSON replaces path with v in JSON, atomically (see WriteAtomic).
func WriteJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteAtomic(path, b)
}

// WriteAtomic replaces path with b: readers see the old content or the new, never a part,
// and after a crash of the host the file holds one or the other (the content is synced before
// the rename, and the directory after it).
func WriteAtomic(path string, b []byte) error {
	if err := ReplaceWhole(path, b); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// ReplaceWhole replaces path with b as WriteAtomic does, but does not make the rename durable:
// after a crash of the host the file holds the old content or the new, each whole (the new is
// synced before the rename), or is missing if it did not exist before. That is the state a
// crash a moment earlier leaves with WriteAtomic: for a file rewritten at every change whose
// last version only needs to be whole (status.json), it saves the directory's sync.
func ReplaceWhole(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// SyncDir makes a rename or a creation in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ReadJSON reads the JSON file at path into v.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
