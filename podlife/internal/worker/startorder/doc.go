// Package startorder holds the start policy that orders a pod's containers by their
// dependencies ([DependencyOrder], ContainerSpec.DependsOn), over the api.Starter the pod's
// worker gives it, and its error [ErrDependencyFailed].
//
// It owns no pod state: what it waits for it asks of the Starter. It must not import the
// worker (podlife/internal/worker), nor containerd's client, the state directory or CNI
// (TestPackageArrows checks it).
package startorder
