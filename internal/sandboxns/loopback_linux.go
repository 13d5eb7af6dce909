package sandboxns

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// loopbackUp sets IFF_UP on the "lo" interface of the calling thread's
// network namespace. A socket is bound to the namespace of the thread that
// creates it, so the caller must be locked to its OS thread.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandboxns: socket for loopback: %w", err)
	}
	defer unix.Close(fd)

	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("sandboxns: loopback ifreq: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("sandboxns: get loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("sandboxns: bring loopback up: %w", err)
	}
	return nil
}
