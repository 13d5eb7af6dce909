//go:build !linux

package cni

import (
	"errors"
	"fmt"
)

// errNoLinks is what the link helpers return off Linux, where there are no
// bridges or veths of ours to look up or delete.
var errNoLinks = fmt.Errorf("network links: %w", errors.ErrUnsupported)

// linkIndex is not supported off Linux.
func linkIndex(string) (int, bool, error) { return 0, false, errNoLinks }

// deleteLink is not supported off Linux.
func deleteLink(string) error { return errNoLinks }

// bridgePorts is not supported off Linux.
func bridgePorts(string) ([]string, error) { return nil, errNoLinks }
