package sandboxns

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SetHostname sets the hostname of the pinned UTS namespace at path (what every container
// joining it sees), on a thread thrown away afterwards.
func SetHostname(path, hostname string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sandboxns: set hostname: %w", err)
	}
	defer f.Close()
	err = onThrowawayThread(func() error {
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWUTS); err != nil {
			return fmt.Errorf("setns %s: %w", path, err)
		}
		return unix.Sethostname([]byte(hostname))
	})
	if err != nil {
		return fmt.Errorf("sandboxns: set hostname %q: %w", hostname, err)
	}
	return nil
}
