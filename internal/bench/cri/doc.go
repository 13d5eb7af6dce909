// Package cri is podlife-bench's CRI row (-only cri): the bench pod run through containerd's
// CRI plugin the way the kubelet calls it, on a second private containerd of the same binary
// with a config this package writes (its own CNI network, a pause image built for the run), one
// pod at a time, then many at once beside podlife, and the memory of running CRI pods.
//
// It must not import the command (internal/cmd/podlife-bench) nor the other internal/bench
// packages but measure (TestPackageArrows in podlife/internal/layout).
package cri
