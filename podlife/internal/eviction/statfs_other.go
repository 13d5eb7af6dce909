//go:build !linux

package eviction

import "errors"

// Space is not implemented on other systems than Linux: an error wrapping
// errors.ErrUnsupported.
func Space(string) (available, capacity uint64, err error) { return 0, 0, errors.ErrUnsupported }
