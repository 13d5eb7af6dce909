package hostcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// RealPath maps paths under the state dir onto its resolved path and leaves others alone.
func TestRealPath(t *testing.T) {
	for _, tc := range []struct{ real, path, want string }{
		{"/real/state", "/var/lib/podlife/pods/a", "/real/state/pods/a"},
		{"/real/state", "/var/lib/podlife", "/real/state"},
		{"/real/state", "/var/lib/other", "/var/lib/other"},
		{"/real/state", "/var/lib/podlife-x/y", "/var/lib/podlife-x/y"},
		{"", "/var/lib/podlife/pods/a", "/var/lib/podlife/pods/a"},
	} {
		if got := RealPath("/var/lib/podlife", tc.real, tc.path); got != tc.want {
			t.Errorf("RealPath(%q, %q) = %q, want %q", tc.real, tc.path, got, tc.want)
		}
	}
}

// Executable refuses a directory, a file without an x bit and a missing file; ProcessAlive
// knows this process and no PID 0.
func TestExecutableAndProcessAlive(t *testing.T) {
	dir := t.TempDir()
	plain, exe := filepath.Join(dir, "plain"), filepath.Join(dir, "exe")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, nil, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, plain, filepath.Join(dir, "missing")} {
		if Executable(p) == nil {
			t.Errorf("Executable(%s) = nil, want an error", p)
		}
	}
	if err := Executable(exe); err != nil {
		t.Errorf("Executable(%s) = %v", exe, err)
	}
	if !ProcessAlive(os.Getpid()) || ProcessAlive(0) || ProcessAlive(-1) {
		t.Error("ProcessAlive: wrong for this process, 0 or -1")
	}
}
