package podlife

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Config.ContainerLogger must be an absolute path (Validate) to an executable file (New, which
// refuses it before it connects to containerd or touches the state dir).
func TestContainerLoggerValidate(t *testing.T) {
	if err := (Config{ContainerLogger: "podlife-logger"}).Validate(); err == nil || !strings.Contains(err.Error(), "config.containerLogger") {
		t.Errorf("relative path: %v, want an error naming config.containerLogger", err)
	}
	dir := t.TempDir()
	notExec := filepath.Join(dir, "logger")
	if err := os.WriteFile(notExec, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), notExec, dir} {
		_, err := New(t.Context(), Config{ContainerLogger: p, StateDir: filepath.Join(dir, "state")})
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "config.containerLogger") {
			t.Errorf("New with ContainerLogger %s: %v, want ErrInvalidSpec naming config.containerLogger", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); !os.IsNotExist(err) {
		t.Errorf("the state dir was made: %v", err)
	}
}
