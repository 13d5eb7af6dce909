package podlife

import (
	"os"
	"path/filepath"
	"testing"
)

// TestControlDirSecured: the control socket's directory, made 0755 before the first pod, ends
// 0700 (hostcheck.SecureDir, as the control server applies it).
func TestControlDirSecured(t *testing.T) {
	r, _, _ := newFakeRuntime(t)
	ctl := filepath.Join(r.cfg.StateDir, "control")
	if err := os.Mkdir(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	r.control.listen()
	if fi, err := os.Stat(ctl); err != nil || fi.Mode().Perm() != 0o700 || r.control.path() == "" {
		t.Errorf("control dir after listen: %v %v, socket %q; want 0700 and serving", fi.Mode(), err, r.control.path())
	}
}
