// Package endpoint is which containerd a Runtime uses and how it reaches it again: the
// configured address, else the system socket, else the state dir's private containerd, which
// it starts (detached, under its start lock) when none runs (Connect); after an outage, the
// private one started again on the same root, another only checked (Revive, which the
// reconnection loop of podlife/internal/conn calls).
//
// It gets the Config's settings as a plain value (Config). It may import podlife/daemon, which
// runs the private containerd, and ctrd; it must not import package podlife, the pod worker,
// adoption or the control socket (TestPackageArrows checks it).
package endpoint
