//go:build !unix

package probe

import "net"

// probeDialer returns a plain dialer.
func probeDialer() *net.Dialer { return &net.Dialer{} }
