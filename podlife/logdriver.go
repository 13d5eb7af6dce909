package podlife

import (
	"fmt"
	"os"

	"github.com/podlife/podlife/internal/logdriver"
)

// IsContainerLogger reports whether this process was started by containerd's shim as the
// container logger of a Runtime whose Config.ContainerLogger is this program. A program that
// is its own container logger (one binary to install, as nerdctl does) starts with:
//
//	func main() {
//		if podlife.IsContainerLogger() {
//			podlife.ServeContainerLogger()
//		}
//		exe, _ := os.Executable()
//		cfg := podlife.Config{ContainerLogger: exe}
//		...
//	}
func IsContainerLogger() bool { return logdriver.IsLogger(os.Args[1:]) }

// ServeContainerLogger runs this process as a container logger (see IsContainerLogger): it
// writes the container's output to its log file until the container's task is deleted, then
// exits the process. It never returns.
func ServeContainerLogger() { logdriver.Main() }

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
