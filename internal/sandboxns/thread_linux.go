package sandboxns

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// onThrowawayThread runs fn on a fresh goroutine locked to its OS thread and
// waits for it. The goroutine never unlocks the thread, so when it returns
// the Go runtime terminates the thread instead of reusing it: whatever fn did
// to the thread's namespaces can never leak into other goroutines.
//
// The main thread is the exception: the runtime cannot terminate it and only
// parks it forever, which would keep fn's namespaces alive for the life of
// the process and change what /proc/self/ns shows. If the fresh goroutine
// lands on the main thread it therefore keeps that thread occupied, untouched,
// while a nested call runs fn on another thread, and then unlocks it.
func onThrowawayThread(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			errc <- onThrowawayThread(fn)
			runtime.UnlockOSThread()
			return
		}
		errc <- fn()
	}()
	return <-errc
}
