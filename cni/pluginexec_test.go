package cni

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/version"
	"golang.org/x/sys/unix"
)

// A plugin started under the state dir's lock holds the lock's file description, and so does
// what it leaves running (iptables, say): once the process that started it lets go of its own
// descriptor (as a killed manager's is closed), the flock stays held until they exit, so that
// another process's DEL waits for them.
func TestPluginHoldsStateLock(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "release"), 0o600); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "plugin")
	// The plugin leaves a child running, which holds what the plugin inherited, and answers.
	script := "#!/bin/sh\n( read x < \"$FIFOS/release\" ) </dev/null >/dev/null 2>&1 &\necho '{}'\n"
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lock := newStateLock(filepath.Join(dir, "cni.lock"))
	unlock, err := lock.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := &pluginExec{DefaultExec: &invoke.DefaultExec{RawExec: &invoke.RawExec{}, PluginDecoder: version.PluginDecoder{}}, lock: lock}
	out, err := e.ExecPlugin(ctx, plugin, nil, []string{"FIFOS=" + dir})
	if err != nil || string(out) != "{}\n" {
		t.Fatalf("ExecPlugin: %q, %v", out, err)
	}
	unlock() // this process's descriptor closed, as a killed manager's is
	tryLock := func() error {
		f, err := os.OpenFile(filepath.Join(dir, "cni.lock"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err := tryLock(); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Fatalf("flock while the plugin's child runs: %v, want EWOULDBLOCK (it holds the lock)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The child exits once released; its exit drops the last descriptor.
	deadline := time.Now().Add(30 * time.Second)
	for tryLock() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the lock is still held 30 s after the plugin's child was released")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
