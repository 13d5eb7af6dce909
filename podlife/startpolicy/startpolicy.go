package startpolicy

import (
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/startorder"
)

// Policy decides when each of a pod's app containers starts (PodSpec.StartPolicy; nil means
// Sequential). Work that does not depend on the order (image checks, snapshots, container and
// task creation, network setup) has already been started in parallel before the policy runs;
// a policy governs only the process starts and, through Starter.Start's return, the postStart
// hooks. Start returns when it has started all it wants to start; it should keep going after a
// container fails (the kubelet does) and return the joined errors; its context is cancelled
// when the pod is being stopped. Its method is documented at [api.StartPolicy].
type Policy = api.StartPolicy

// Starter is a policy's handle on the pod it starts: its app containers in spec order, Start
// one by name, a container's DependsOn, and Wait for a container's condition. podlife gives one
// to Policy.Start; a test of a policy can give its own. Its methods are documented at
// [api.Starter].
type Starter = api.Starter

// Sequential is the kubelet's order and podlife's default: containers start one at a time in
// spec order, and each container's postStart hook must return before the next container
// starts. A container that fails to start does not stop the others.
func Sequential() Policy { return api.Sequential() }

// Parallel starts up to limit containers at once (limit <= 0 means all at once). A container's
// postStart hook then delays only that container's own readiness, not the others' starts.
func Parallel(limit int) Policy { return api.Parallel(limit) }

// DependencyOrder starts every container as soon as the containers it depends on
// (ContainerSpec.DependsOn) have reached their condition: Started, Ready or Completed.
// Containers without dependencies start at once, in parallel. This is Compose's depends_on
// inside one pod, which the kubelet does not offer; cycles and unknown names are rejected by
// validation.
func DependencyOrder() Policy { return startorder.DependencyOrder() }

// ErrDependencyFailed is wrapped by the error of a container whose dependency ended and will
// not reach its condition (Starter.Wait's error), so that the container is not started.
var ErrDependencyFailed = startorder.ErrDependencyFailed

// Dependency is a condition on another container of the same pod (ContainerSpec.DependsOn):
// Container, the name of a container or init container of the pod, and Condition. Its fields
// are documented at [api.Dependency].
type Dependency = api.Dependency

// DependencyCondition is what a Dependency waits for.
type DependencyCondition = api.DependencyCondition

// Dependency conditions.
const (
	// ContainerStarted (the default): the container's process started and its postStart hook
	// and startup probe (if any) succeeded.
	ContainerStarted = api.ContainerStarted
	// ContainerReady: the container is ready (its readiness probe, if any, succeeds).
	ContainerReady = api.ContainerReady
	// ContainerCompleted: the container exited with code 0.
	ContainerCompleted = api.ContainerCompleted
)
