package hostcheck

import (
	"bytes"
	"log/slog"
	"os"
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
	if err := SecureDir(dir, log); err != nil {
		t.Fatalf("SecureDir on a 0755 dir of ours: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("mode after secureDir: %v %v, want 0700", fi.Mode(), err)
	}
	if !strings.Contains(logs.String(), "its mode was set to 0700") || !strings.Contains(logs.String(), "was=0755") {
		t.Errorf("log %q, want the warning with the old mode", logs.String())
	}
	logs.Reset()
	if err := SecureDir(dir, log); err != nil || logs.Len() > 0 {
		t.Errorf("SecureDir on a 0700 dir: %v, log %q; want nothing to do", err, logs.String())
	}
	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := SecureDir(dir, log); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("SecureDir on another user's dir = %v, want it refused", err)
	}
}
