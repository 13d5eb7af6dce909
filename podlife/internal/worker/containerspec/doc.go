// Package containerspec builds what a pod's container is created with from the pod's
// immutable data, as pure functions: its OCI spec options (process, environment, namespaces,
// /etc files, resources, security, annotations, OCI hooks: [Opts]), the namespaces the pause
// and every container share ([SharedNamespaceOpts]), the downward API's pod fields
// ([FieldValue]), values derived from the pod spec ([GracePeriod], [PortMappings]), the stop
// signal a container's image gives it ([StopSignal]) and the CreateContainerConfigError
// ([ConfigError]). Values in, values out: the worker (package
// podlife/internal/worker) gathers what it reads (the specs, the sandbox's paths, the image
// config) and passes functions for what is resolved only when the spec asks for it (the host's
// IPs, an ephemeral container's PID namespace, a Localhost seccomp profile). The building
// blocks (security, resources, mounts) are podlife/internal/ocibuild's.
//
// It imports containerd's spec-building package (pkg/oci), never containerd's client. It must
// not import the worker (arrows one way: worker -> containerspec), package podlife,
// podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir or podlife/daemon
// (TestPackageArrows checks it).
package containerspec
