// Package podupdate holds the API server's rules for what a running pod takes from outside
// its spec: an update of its active deadline (CheckDeadlineUpdate: set when unset, or
// shortened), a condition set by a controller (ValidateCondition: not one the kubelet
// computes), and how its readiness gates hold it back (GatesMessage, in the kubelet's words).
// It is pure: the worker applies what it allows.
//
// It must not import the pod worker (podlife/internal/worker), package podlife,
// podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir, podlife/daemon or
// cni (TestPackageArrows).
package podupdate
