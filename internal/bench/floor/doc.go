// Package floor is podlife-bench's floor: the bench pod's two containers created and started
// one after another directly through the containerd client, plus one netns and CNI ADD (and, to
// stop: kill, wait and delete both, CNI DEL, netns removal). The times rows compare podlife's
// start and stop with it.
//
// It must not import the command (internal/cmd/podlife-bench) nor the other internal/bench
// packages but measure (TestPackageArrows in podlife/internal/layout).
package floor
