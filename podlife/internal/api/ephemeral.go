package api

// EphemeralContainerSpec describes an ephemeral container: a container added to a running pod
// to inspect it (kubectl debug), as Kubernetes' EphemeralContainer. It joins the pod's network,
// IPC and UTS namespaces, mounts what its VolumeMounts name, and is never restarted. The API
// server's rules apply: no ports, probes, lifecycle hooks, resources, container restart policy
// or subPath mounts.
type EphemeralContainerSpec struct {
	ContainerSpec
	// TargetContainerName, if set, names a container of the pod (init containers included)
	// whose PID namespace the ephemeral container joins: it sees and, with the capabilities,
	// signals that container's processes. Empty: a PID namespace of its own, unless the pod
	// shares one (ShareProcessNamespace, HostPID), which it then joins.
	TargetContainerName string
	// Stdin keeps the container's stdin open for one client to attach (Pod.Attach,
	// `podlife debug -i`); TTY gives its process a terminal (-t). Either makes its output
	// attachable, and logged as well, as under the kubelet (written by its manager: Pod.Logs
	// and `podlife logs` show it). The first attach's end closes its stdin (Kubernetes'
	// stdinOnce).
	Stdin, TTY bool
}
