package teardown

import (
	"errors"
	"sync"
)

// Each runs f on every element of xs at once and returns their errors joined (in the order of
// xs), once every call returned: the stop's kills and deletions, the removal's deletions.
func Each[T any](xs []T, f func(T) error) error {
	errs := make([]error, len(xs)) // each call writes its own
	var wg sync.WaitGroup
	for i, x := range xs {
		wg.Go(func() { errs[i] = f(x) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Outlived returns the containers a sidecar outlives at the pod's stop (the kubelet's
// termination order): the sidecars after it in spec order among inits, and every app
// container. Its stop signal waits until they have exited.
func Outlived[C comparable](sidecar C, inits []C, isSidecar func(C) bool, apps []C) []C {
	var outlived []C
	after := false
	for _, c := range inits {
		if after && isSidecar(c) {
			outlived = append(outlived, c)
		}
		after = after || c == sidecar
	}
	return append(outlived, apps...)
}
