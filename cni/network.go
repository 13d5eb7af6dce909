package cni

import "context"

// Network is what podlife needs from a pod network.
//
// Implementations serialise Setup and Remove (see the package
// documentation), so callers may use one Network from many goroutines.
type Network interface {
	// Setup attaches the network namespace pinned at netnsPath to the
	// network for the pod whose CNI container ID is id, and returns what
	// the plugins configured. It fails, changing nothing, if the pod is
	// already attached; if a plugin fails, what the others did is undone.
	Setup(ctx context.Context, id, netnsPath string, opts ...AttachOption) (*Result, error)
	// Remove detaches the pod with the given id. It is idempotent and
	// tolerates a netnsPath that no longer exists or is no longer a network
	// namespace: the plugins are still asked to release the pod's address
	// and port mappings. Options not given default to the ones Setup
	// recorded in the CNI cache.
	Remove(ctx context.Context, id, netnsPath string, opts ...AttachOption) error
}
