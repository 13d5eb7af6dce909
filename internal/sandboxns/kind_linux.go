package sandboxns

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// cloneFlag returns the unshare(2) flag that creates a namespace of kind k.
func cloneFlag(k Kind) (int, error) {
	switch k {
	case Net:
		return unix.CLONE_NEWNET, nil
	case IPC:
		return unix.CLONE_NEWIPC, nil
	case UTS:
		return unix.CLONE_NEWUTS, nil
	case PID:
		return 0, fmt.Errorf("sandboxns: a PID namespace cannot be created without its first process: pin a process's with PinProcess")
	default:
		return 0, fmt.Errorf("sandboxns: unknown namespace kind %q", k)
	}
}

// cloneFlags validates kinds (at least one, all known, no duplicates) and
// returns the combined unshare(2) flags for them.
func cloneFlags(kinds []Kind) (int, error) {
	if len(kinds) == 0 {
		return 0, fmt.Errorf("sandboxns: no namespace kinds requested")
	}
	var flags int
	for _, k := range kinds {
		f, err := cloneFlag(k)
		if err != nil {
			return 0, err
		}
		if flags&f != 0 {
			return 0, fmt.Errorf("sandboxns: namespace kind %q requested twice", k)
		}
		flags |= f
	}
	return flags, nil
}
