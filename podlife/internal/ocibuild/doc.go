// Package ocibuild turns podlife's specs into OCI runtime-spec options, as pure functions:
// the effective security context of a container (the pod's merged with the container's, as
// the kubelet's DetermineEffectiveSecurityContext) and its options (user and groups,
// capabilities, privileges, sysctls, seccomp), the runAsNonRoot check, resource limits, and
// the bind mounts of the pod's files. Values in, values out: reading a Localhost seccomp
// profile is the caller's, passed in as a function.
//
// It imports podlife/internal/api (the specs) and containerd's spec-building packages
// (pkg/oci, contrib/seccomp), never containerd's client: it must not import package podlife,
// podlife/internal/ctrd, podlife/internal/poddir, podlife/daemon or cni.
package ocibuild
