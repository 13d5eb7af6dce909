// Package hostlookup finds on the host what a Runtime's Config names or leaves to defaults:
// the host's IPs (HostIPs: status.hostIPs and the downward API's status.hostIP), the pause
// process's binary (PauseBinary: catatonit), a Localhost seccomp profile under the profile
// root (SeccompProfile). Each takes the Config's setting as a plain value and is read at each
// call.
//
// It must not import package podlife, the pod worker, containerd's client or podlife/daemon
// (TestPackageArrows checks it).
package hostlookup
