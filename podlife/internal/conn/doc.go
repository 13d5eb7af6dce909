// Package conn owns the Runtime's connection to containerd: whether it is up or down, the
// channels that say so (Up, Lost), the reconnection loop with its back-off (revive, then the
// client's own gRPC connection), and the waits and retries of calls that need containerd
// meanwhile (WaitConnected, Retry, WaitErr). A Watch is made by the Runtime (package podlife)
// from plain values and functions: how to revive and check containerd, its closing channel,
// its logger, and who to tell of an outage and of the recovery (Config.Affected); the
// Runtime's pods learn of both through that callback (ContainerdUnavailable,
// ContainerdRecovered events).
//
// It must not import package podlife nor the pod worker (podlife/internal/worker and its
// sub-packages): the arrows point from them to it, and TestPackageArrows checks it.
package conn
