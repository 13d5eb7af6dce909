// Package startorder holds the api.Starter the pod's worker gives a start policy
// ([PodStarter]: its app containers started, their dependencies waited for) and the start
// policy that orders a pod's containers by their dependencies ([DependencyOrder],
// ContainerSpec.DependsOn), with its error [ErrDependencyFailed].
//
// It owns no pod state but the PodStarter's failed starts, which it reads and writes only in
// the closures it hands the worker's loop (PodStarter.Do, PodStarter.Update); what it waits
// for it asks of the worker's functions. It must not import the worker
// (podlife/internal/worker), nor containerd's client, the state directory or CNI
// (TestPackageArrows checks it).
package startorder
