package podlife

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A state dir of ours with a looser mode is set to 0700, with a warning; one of another user is
// refused.
func TestSecureDir(t *testing.T) {
	dir, err := os.MkdirTemp("", "plf-sd-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if err := secureDir(dir, log); err != nil {
		t.Fatalf("secureDir on a 0755 dir of ours: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("mode after secureDir: %v %v, want 0700", fi.Mode(), err)
	}
	if !strings.Contains(logs.String(), "its mode was set to 0700") || !strings.Contains(logs.String(), "was=0755") {
		t.Errorf("log %q, want the warning with the old mode", logs.String())
	}
	logs.Reset()
	if err := secureDir(dir, log); err != nil || logs.Len() > 0 {
		t.Errorf("secureDir on a 0700 dir: %v, log %q; want nothing to do", err, logs.String())
	}
	// The control socket's directory, made 0755 before the first pod, ends 0700.
	r, _, _ := newFakeRuntime(t)
	ctl := filepath.Join(r.cfg.StateDir, "control")
	if err := os.Mkdir(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	r.control.listen()
	if fi, err := os.Stat(ctl); err != nil || fi.Mode().Perm() != 0o700 || r.control.path() == "" {
		t.Errorf("control dir after listen: %v %v, socket %q; want 0700 and serving", fi.Mode(), err, r.control.path())
	}

	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := secureDir(dir, log); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("secureDir on another user's dir = %v, want it refused", err)
	}
}
