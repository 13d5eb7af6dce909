package execgate

import (
	"os"

	"golang.org/x/sys/unix"
)

// unread is the number of bytes in f's pipe that its reader has not read (FIONREAD, which is
// TIOCINQ's number on Linux).
func unread(f *os.File) (int, error) { return unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ) }
