package hostcheck

import (
	"fmt"
	"os"
	"strings"
)

// Executable says why path is not an executable file, if it is not.
func Executable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case st.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// ProcessAlive reports whether a process with that PID exists (and is not a zombie).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}
