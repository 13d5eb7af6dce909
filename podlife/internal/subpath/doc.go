// Package subpath opens a volumeMount's subPath inside its volume as the kubelet allows it,
// without ever handing out an object outside the volume: symlinks are resolved as the host
// resolves them and must stay in the volume, a missing subPath is created inside it, and a path
// component swapped for a link while it runs gives an error wrapping ErrEscapes (Linux only;
// filepath-securejoin does the walk). Package podlife bind-mounts the handle it returns.
//
// It takes an open root and a relative path and knows nothing of pods, volumes or hostPath
// types. It must not import package podlife or any other package of this repository.
package subpath
