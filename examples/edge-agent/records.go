package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// record is what the agent keeps of a pod it owns, across its own restarts: the pods of the
// state dir that have no record are not the agent's, and it never touches them.
type record struct {
	Name string `json:"name"`
	File string `json:"file"`
	Hash string `json:"hash"`
}

// recordStore keeps one file per owned pod, <dir>/<pod>.json, written atomically (a temporary
// file, fsync, rename, fsync of the directory): a crash leaves the old record or the new one.
type recordStore struct {
	dir string
}

func newRecordStore(dir string) (recordStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return recordStore{}, fmt.Errorf("agent state: %w", err)
	}
	return recordStore{dir: dir}, nil
}

// list returns every record.
func (s recordStore) list() ([]record, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("agent state: %w", err)
	}
	var out []record
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("agent state: %w", err)
		}
		var r record
		if err := json.Unmarshal(b, &r); err != nil || r.Name+".json" != e.Name() {
			return nil, fmt.Errorf("agent state: %s: not a pod record (%v)", e.Name(), err)
		}
		out = append(out, r)
	}
	return out, nil
}

// put writes r before the pod is created (or replaced), so that a crash in between leaves a
// pod the agent finds as its own.
func (s recordStore) put(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(s.dir, r.Name+".json"), b, 0o600); err != nil {
		return fmt.Errorf("agent state: %w", err)
	}
	return nil
}

// remove deletes the record of a pod once the pod is gone.
func (s recordStore) remove(name string) error {
	if err := os.Remove(filepath.Join(s.dir, name+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("agent state: %w", err)
	}
	return syncDir(s.dir)
}

// writeFileAtomic replaces path with data: readers see the old content or the new one.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
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
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
