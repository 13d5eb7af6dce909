// Package hostmount holds the host-side mount helpers of package podlife: mounting a tmpfs,
// lazy unmounts (one point, or every point under a directory, deepest first), and RemoveTree,
// the recursive delete that never goes through a mount point (ErrMountInTheWay), which every
// delete under the state dir uses.
//
// It takes plain paths and knows nothing of pods, volumes or the state dir's layout. Off Linux,
// where podlife mounts nothing, the mounts fail with errors.ErrUnsupported and RemoveTree is
// os.RemoveAll.
//
// It must not import package podlife or any other package of this repository: the arrow points
// from podlife to hostmount.
package hostmount
