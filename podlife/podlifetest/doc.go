// Package podlifetest provides utilities for tests of podlife and of
// programs that use it, in the spirit of net/http/httptest.
//
//   - [BusyboxArchive] and [ImportBusybox] build a small image from the
//     host's static busybox, entirely in Go, with no registry involved.
//   - [StartContainerd] runs a private containerd in a temporary directory
//     and cleans up after it; [RemoveAll] removes a directory with mounts
//     left under it.
//   - [StartRegistry] runs a local registry (Debian's docker-registry) on
//     127.0.0.1, optionally with basic auth, and pushes images to it.
//   - [ContainerdLeaks] and [HostLeaks] list what a test left behind;
//     [RemoveNamespaceDirs] removes what runc leaves per namespace.
//   - [Budget] scales a test's upper bounds (contexts, waits, timeouts) by
//     [TimeScale], PODLIFE_TEST_SLOW, for a slow host such as an emulated VM.
//
// Some state stays global even with a private containerd: runc's state in
// /run/containerd/runc/<namespace>, shim sockets in /run/containerd/s,
// cgroups under /<namespace>, and the client's default FIFO directory
// /run/containerd/fifo. Tests should use a namespace of their own and
// cio.WithFIFODir under the daemon's directory.
//
// The package is for Linux; most of it needs root and the binaries it runs,
// and tests should skip otherwise.
package podlifetest
