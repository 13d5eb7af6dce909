package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchDir calls kick whenever an entry of dir that does not start with "." is created,
// written, renamed or removed (inotify), until ctx ends. The agent reads the directory then,
// besides its periodic reads: a manifest dropped in is seen at once. Events of the directory
// itself being removed or moved end the watch (the periodic reads go on).
func watchDir(ctx context.Context, dir string, kick func()) error {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_ATTRIB |
		unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	if _, err := unix.InotifyAddWatch(fd, dir, mask); err != nil {
		unix.Close(fd)
		return fmt.Errorf("inotify: watch %s: %w", dir, err)
	}
	// Non-blocking: the runtime's poller waits for it, and Close ends a Read in progress.
	f := os.NewFile(uintptr(fd), "inotify")
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, os.ErrClosed) {
				return nil
			}
			return fmt.Errorf("inotify: %w", err)
		}
		relevant, gone := parseEvents(buf[:n])
		if relevant {
			kick()
		}
		if gone {
			f.Close()
			return fmt.Errorf("inotify: %s was removed or moved", dir)
		}
	}
}

// parseEvents reads a buffer of inotify events: relevant if one names an entry that does not
// start with "." or the queue overflowed, gone if the directory itself went away.
func parseEvents(b []byte) (relevant, gone bool) {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			break
		}
		name := b[unix.SizeofInotifyEvent:end]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		switch {
		case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0:
			gone = true
		case ev.Mask&unix.IN_Q_OVERFLOW != 0:
			relevant = true
		case len(name) > 0 && name[0] != '.':
			relevant = true
		}
		b = b[end:]
	}
	return relevant, gone
}
