package podlifetest

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// RemoveAll unmounts everything mounted at or below dir, deepest first,
// then removes dir like os.RemoveAll. Mounts are detached (MNT_DETACH), so
// busy ones go as soon as they are no longer used. It is meant for test
// cleanup, when a failed test left a snapshotter's or a container's mounts
// under a daemon's directory.
func RemoveAll(dir string) error {
	mounts, err := mountsUnder(dir)
	if err != nil {
		return fmt.Errorf("podlifetest: remove %s: %w", dir, err)
	}
	var errs []error
	for _, m := range mounts {
		if err := unmountDetach(m.point); err != nil && !errors.Is(err, unix.EINVAL) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", m.point, err))
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("podlifetest: remove %s: %w", dir, err)
	}
	return nil
}
