package poddir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteJSONUnsynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pod.json")
	f, err := WriteJSONUnsynced(path, map[string]string{"name": "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := ReadJSON(path, &got); err != nil || got["name"] != "a" {
		t.Fatalf("before the sync: %v, %v; want it readable", got, err)
	}
	if err := SyncWritten(f, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}

func TestIsTorn(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]bool{"": true, `{"name": "a`: true, `{"name": 1}x`: false, `x`: false, `{"name": "a"}`: false} {
		path := filepath.Join(dir, "pod.json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if got := IsTorn(ReadJSON(path, &v)); got != want {
			t.Errorf("%q: IsTorn = %v, want %v", content, got, want)
		}
	}
}
