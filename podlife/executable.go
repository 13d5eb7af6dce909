package podlife

import (
	"fmt"
	"os"
)

// checkExecutable says why path is not an executable file, if it is not.
func checkExecutable(path string) error {
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
