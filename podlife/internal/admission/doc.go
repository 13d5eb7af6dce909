// Package admission owns what a Runtime's configuration lets a pod do, checked once at
// admission after the spec's defaulting and validation: the gates (privileged containers,
// the host's PID and IPC namespaces, unsafe sysctls beyond the kubelet's safe set, Localhost
// seccomp profiles without a profile root) and the Pod Security Standards level (evaluated
// by package podsecurity, with the Config's allowed capabilities exempt). It owns the types
// package podlife/podsecurity re-exports for them (as Level and Error) and the
// validation of the Config's PodSecurity and AllowedCapabilities.
//
// It gets the Config's settings as a Policy value. It must not import package podlife, the
// pod worker, package ctrd, podlife/daemon or cni.
package admission
