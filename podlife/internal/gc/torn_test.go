package gc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

func TestTornLeft(t *testing.T) {
	dir := t.TempDir()
	read := func(content string) error {
		if err := os.WriteFile(filepath.Join(dir, recordFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		var rec podRecord
		return poddir.ReadJSON(filepath.Join(dir, recordFile), &rec)
	}
	if !tornLeft(dir, read("")) || !tornLeft(dir, read(`{"uid": "u`)) {
		t.Errorf("an empty or cut record, lock free: want torn")
	}
	if tornLeft(dir, read(`not json`)) || tornLeft(dir, read(`{"uid": "u"}`)) {
		t.Errorf("a record that is not cut short: want not torn")
	}
	lock, err := poddir.LockAdoption(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if tornLeft(dir, read("")) {
		t.Errorf("an empty record whose adoption lock is held: want not torn (its pod lives)")
	}
}
