// Package peercred reads the credentials of a unix socket's peer (SO_PEERCRED), for package
// podlife's control socket, which serves only processes of its own uid. Off Linux it cannot tell
// the peer and fails with errdefs.ErrNotImplemented (podlife.ErrNotSupported).
//
// It must not import package podlife or any other package of this repository.
package peercred
