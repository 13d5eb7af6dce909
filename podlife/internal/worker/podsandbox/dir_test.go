package podsandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// MakeDir makes a new pod's directory under the pods' lock, and refuses a name whose directory
// exists.
func TestMakeDir(t *testing.T) {
	state := t.TempDir()
	dir, release, err := podsandbox.MakeDir(state, "web")
	if err != nil {
		t.Fatalf("MakeDir: %v", err)
	}
	release()
	if want := filepath.Join(state, "pods", "web"); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("pod dir not made: %v", err)
	}
	if _, _, err := podsandbox.MakeDir(state, "web"); !errors.Is(err, api.ErrAlreadyExists) {
		t.Errorf("MakeDir of an existing pod = %v, want ErrAlreadyExists", err)
	}
}
