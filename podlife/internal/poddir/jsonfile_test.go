package poddir

import (
	"os"
	"path/filepath"
	"testing"
)

// ReplaceWhole and WriteAtomic replace a file's content whole and leave no temporary file; a
// failed write leaves the old content.
func TestReplaceWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "status.json")
	for _, w := range []struct {
		name  string
		write func(string, []byte) error
	}{{"ReplaceWhole", ReplaceWhole}, {"WriteAtomic", WriteAtomic}} {
		for _, content := range []string{`{"phase":"Pending"}`, `{"phase":"Running","podIP":"10.0.0.2"}`, `{}`} {
			if err := w.write(path, []byte(content)); err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != content {
				t.Fatalf("%s: file holds %q (%v), want %q", w.name, got, err, content)
			}
			if _, err := os.Lstat(path + ".tmp"); !os.IsNotExist(err) {
				t.Fatalf("%s: temporary file left: %v", w.name, err)
			}
		}
	}
	if err := ReplaceWhole(filepath.Join(dir, "gone", "status.json"), []byte("{}")); !os.IsNotExist(err) {
		t.Errorf("a write in a removed directory: %v, want not-exist", err)
	}
}
