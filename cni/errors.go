package cni

import "fmt"

// opError wraps err with the operation, network and pod it concerns, e.g.
// `cni: ADD network "podlife" for pod "x": ...`.
func opError(op, network, id string, err error) error {
	return fmt.Errorf("cni: %s network %q for pod %q: %w", op, network, id, err)
}
