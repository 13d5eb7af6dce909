package logdriver

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// unread is the number of bytes waiting in the pipes among inputs (FIONREAD).
func unread(inputs []io.Reader) int {
	total := 0
	for _, in := range inputs {
		f, ok := in.(*os.File)
		if !ok {
			continue
		}
		rc, err := f.SyscallConn()
		if err != nil {
			continue
		}
		_ = rc.Control(func(fd uintptr) {
			if n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
				total += n
			}
		})
	}
	return total
}
