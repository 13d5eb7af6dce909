package main

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWatchDir(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	kicks := make(chan struct{}, 16)
	done := make(chan error, 1)
	go func() { done <- watchDir(ctx, dir, func() { kicks <- struct{}{} }) }()

	// The watch is set up asynchronously: write until a kick comes (bounded).
	deadline := time.After(30 * time.Second)
	for kicked := false; !kicked; {
		if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-kicks:
			kicked = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("no kick after writing a manifest")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("watchDir after its context ended: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watchDir did not return after its context ended")
	}
}

// event encodes one inotify event as the kernel does (name NUL-padded).
func event(mask uint32, name string) []byte {
	n := 0
	if name != "" {
		n = (len(name) + 1 + 15) / 16 * 16
	}
	b := make([]byte, unix.SizeofInotifyEvent+n)
	binary.NativeEndian.PutUint32(b[0:], 1)
	binary.NativeEndian.PutUint32(b[4:], mask)
	binary.NativeEndian.PutUint32(b[12:], uint32(n))
	copy(b[unix.SizeofInotifyEvent:], name)
	return b
}

func TestParseEvents(t *testing.T) {
	cat := func(evs ...[]byte) []byte {
		var b []byte
		for _, e := range evs {
			b = append(b, e...)
		}
		return b
	}
	for _, tc := range []struct {
		name           string
		buf            []byte
		relevant, gone bool
	}{
		{"a manifest written", event(unix.IN_CLOSE_WRITE, "web.yaml"), true, false},
		{"dotfiles only (status, editor swap files)", cat(event(unix.IN_CREATE, ".status"), event(unix.IN_MODIFY, ".web.yaml.swp")), false, false},
		{"a dotfile then a manifest renamed in", cat(event(unix.IN_CREATE, ".x"), event(unix.IN_MOVED_TO, "db.yaml")), true, false},
		{"overflow", event(unix.IN_Q_OVERFLOW, ""), true, false},
		{"the directory removed", cat(event(unix.IN_DELETE_SELF, ""), event(unix.IN_IGNORED, "")), false, true},
		{"a truncated buffer", event(unix.IN_CREATE, "web.yaml")[:unix.SizeofInotifyEvent+2], false, false},
	} {
		if r, g := parseEvents(tc.buf); r != tc.relevant || g != tc.gone {
			t.Errorf("%s: relevant %v gone %v, want %v %v", tc.name, r, g, tc.relevant, tc.gone)
		}
	}
}
