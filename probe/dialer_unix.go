//go:build unix

package probe

import (
	"net"
	"syscall"
)

// probeDialer returns a dialer whose sockets linger for at most 1 s on close,
// so that frequent probes do not pile up sockets in TIME_WAIT (as the kubelet).
func probeDialer() *net.Dialer {
	return &net.Dialer{
		Control: func(network, address string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) {
				_ = syscall.SetsockoptLinger(int(fd), syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 1})
			})
		},
	}
}
