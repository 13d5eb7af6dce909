package sandboxns

import (
	"fmt"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// PinProcess pins the namespace of kind k of the running process pid at
// dir/<k> and returns that path. It is how a namespace that only a live
// process can make (a PID namespace, whose first process is its init) is
// given a path that cannot come to name another process's namespace: once
// the process is gone, the pin still names its (now dead) namespace, and a
// process that tries to join it fails instead of landing in a stranger's.
//
// dir is created with mode 0700 if it does not exist; the pin file must not
// exist yet. [Remove] unpins it with the others. PinProcess needs
// CAP_SYS_ADMIN.
func PinProcess(dir string, k Kind, pid int) (string, error) {
	if pid <= 0 {
		return "", fmt.Errorf("sandboxns: pin %s namespace: invalid pid %d", k, pid)
	}
	if _, err := ensureDir(dir); err != nil {
		return "", err
	}
	p := filepath.Join(dir, string(k))
	if err := createPinFile(p); err != nil {
		return "", err
	}
	src := filepath.Join("/proc", strconv.Itoa(pid), "ns", string(k))
	if err := unix.Mount(src, p, "", unix.MS_BIND, ""); err != nil {
		_ = unpin(p)
		return "", fmt.Errorf("sandboxns: pin %s namespace of process %d at %s: %w", k, pid, p, err)
	}
	return p, nil
}
