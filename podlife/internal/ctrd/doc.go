// Package ctrd is the core's only user of the containerd client: the connection (dial, health,
// the reconnection's serving check), images (local lookup, pull, import, list, config, read-only
// views), leases, containers (create, find by label, load, delete) and their tasks and exec'd
// processes, the direct wait on a shim while containerd is away, the shims started for a pod's
// tasks, found by their command line and held by a pidfd (to wait for their exit, or kill them),
// the direct deletion of tasks a shim serves that containerd does not know, and the usage
// counters of running tasks (read from their cgroup's files, else containerd's task metrics).
//
// It hides containerd's client behind a few concrete types ([Client], [Container], [Task],
// [Process], [Image]) whose methods say what podlife needs, not what containerd offers; the
// supervisor's seam (package tasks' Runtime, with a fake for tests without root) is
// built on them. Errors are containerd's (errdefs classes, gRPC codes), wrapped with %w, so that
// callers branch on errdefs.IsNotFound and on a lost connection as before. [ExitStatus] and
// [Status] are containerd's value types, re-exported so that callers need not import the
// client.
//
// What it does not own: OCI spec building (callers pass oci.SpecOpts, built in podlife), crash
// points (podlife hits them around these calls), creating and removing cgroups, pinned
// namespaces and shim sockets on the host, and every policy (what to create, when, and what an
// error means). It must never import package podlife or any of its other internal packages:
// the arrow points from podlife to ctrd.
package ctrd
