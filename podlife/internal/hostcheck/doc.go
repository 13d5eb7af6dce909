// Package hostcheck holds the checks of the host that a Runtime makes before it trusts it:
// that the state dir (and the control socket's directory) is a directory only its owner can
// enter, owned by this user or root (fixed to 0700 when it is ours); the state dir's real
// path (symlinks resolved, as mount points show it); that a configured binary is an
// executable file; that a process (a pod's manager) is alive.
//
// Values in, errors out; it must not import package podlife, any other podlife package but
// podlife/internal/api, podlife/daemon or cni.
package hostcheck
