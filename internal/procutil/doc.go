// Package procutil starts and stops the child processes of podlife's
// daemons and test fixtures.
//
// A child is started on an OS thread that stays locked until the child
// exits. On Linux the parent-death signal (SysProcAttr.Pdeathsig) fires when
// the thread that forked the child ends, not when the process does; Go may
// end an unlocked thread at any time, so without the lock a child could be
// signalled while its parent still runs.
//
// It imports nothing of this repository and must not import package podlife (podlife/daemon and
// podlife/podlifetest build on it).
package procutil
