package gc

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// A record cut short is a dead pod's only with its adoption lock free and its namespace pins
// unmounted (what a reboot leaves); any other unreadable record may be a live pod's.
func TestDiedWithHost(t *testing.T) {
	dir := t.TempDir()
	read := func(content string) error {
		if err := os.WriteFile(filepath.Join(dir, recordFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		var rec podRecord
		return poddir.ReadJSON(filepath.Join(dir, recordFile), &rec)
	}
	if diedWithHost(dir, read(`{"uid": "u`)) {
		t.Errorf("a record cut short, no namespace pinned: want not died (no proof)")
	}
	pin := filepath.Join(dir, "ns", "net")
	if err := os.MkdirAll(filepath.Dir(pin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pin, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !diedWithHost(dir, read("")) || !diedWithHost(dir, read(`{"uid": "u`)) {
		t.Errorf("an empty or cut record, pins unmounted, lock free: want died with the host")
	}
	if diedWithHost(dir, read(`not json`)) || diedWithHost(dir, read(`{"uid": "u"}`)) {
		t.Errorf("a record that is not cut short: want not died")
	}
	lock, err := poddir.LockAdoption(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diedWithHost(dir, read("")) {
		t.Errorf("an empty record whose adoption lock is held: want not died (its pod lives)")
	}
	lock.Close()

	if os.Geteuid() != 0 {
		t.Skip("mounting a namespace pin needs root")
	}
	if err := unix.Mount("/proc/self/ns/net", pin, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind-mount a namespace: %v", err)
	}
	defer func() {
		if err := unix.Unmount(pin, unix.MNT_DETACH); err != nil {
			t.Error(err)
		}
	}()
	if diedWithHost(dir, read(`{"uid": "u`)) {
		t.Errorf("a record cut short while a namespace pin is mounted: want not died (its pod lives)")
	}
}
