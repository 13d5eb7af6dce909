package record

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// pod.json: the snapshot of the newest ticket stays on disk, whatever the order of the writes;
// the release runs once, after the first write.
func TestWriterOrder(t *testing.T) {
	dir := t.TempDir()
	released := 0
	w := NewWriter(func() { released++ })
	snap := func(d time.Duration) Snapshot {
		return Snapshot{Dir: dir, Key: []byte("key"), Record: Record{Name: "p", ActiveDeadline: &d},
			Recorded: api.PodSpec{Name: "p", Containers: []api.ContainerSpec{{Name: "c", Image: "i", Env: []api.EnvVar{{Name: "K", Value: "secret"}}}}}}
	}
	older, newer := w.Ticket(), w.Ticket()
	if err := w.Write(newer, snap(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if released != 1 {
		t.Fatalf("released %d times after the first write, want 1", released)
	}
	if err := w.Write(older, snap(time.Hour)); err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := poddir.ReadJSON(filepath.Join(dir, RecordFile), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ActiveDeadline == nil || *rec.ActiveDeadline != time.Minute {
		t.Errorf("deadline on disk %v, want the newer snapshot's 1m0s", rec.ActiveDeadline)
	}
	if rec.SpecMAC == "" || rec.SpecKey == "" || len(rec.Spec) == 0 {
		t.Errorf("no spec or fingerprints: %+v", rec)
	}
	if released != 1 {
		t.Errorf("released %d times, want 1", released)
	}
	// A pod adopted to be stopped keeps the fingerprints it had.
	kept := &Record{SpecMAC: "mac", SpecKey: "k0", SpecHash: "h"}
	s := snap(time.Minute)
	s.Kept = kept
	if err := w.Write(w.Ticket(), s); err != nil {
		t.Fatal(err)
	}
	if err := poddir.ReadJSON(filepath.Join(dir, RecordFile), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.SpecMAC != "mac" || rec.SpecKey != "k0" || rec.SpecHash != "h" {
		t.Errorf("fingerprints %q %q %q, want the kept record's", rec.SpecMAC, rec.SpecKey, rec.SpecHash)
	}
}

// A first write that fails keeps the pods' lock (its release is not called): the pod's
// directory has no record and its process still undoes it, which another process's startup
// garbage collection must not take for a crash's leftover. Release gives it back, once.
func TestWriterKeepsLockAfterFailedWrite(t *testing.T) {
	dir := t.TempDir()
	released := 0
	w := NewWriter(func() { released++ })
	s := Snapshot{Dir: dir, Key: []byte("key"), Record: Record{Name: "p"}, Recorded: api.PodSpec{Name: "p"},
		WriteFile: func(string, Record) error { return errors.New("no space left on device") }}
	if err := w.Write(w.Ticket(), s); err == nil {
		t.Fatal("the write did not fail")
	}
	if released != 0 {
		t.Fatalf("released %d times after a failed first write, want 0", released)
	}
	w.Release()
	w.Release()
	if released != 1 {
		t.Fatalf("released %d times after Release, want 1", released)
	}
	// A failed write, then one that succeeds: the success releases.
	released = 0
	w = NewWriter(func() { released++ })
	if err := w.Write(w.Ticket(), s); err == nil {
		t.Fatal("the write did not fail")
	}
	s.WriteFile = nil
	if err := w.Write(w.Ticket(), s); err != nil {
		t.Fatal(err)
	}
	if released != 1 {
		t.Fatalf("released %d times after the write that succeeded, want 1", released)
	}
}
