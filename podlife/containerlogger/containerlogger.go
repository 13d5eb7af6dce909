// Package containerlogger lets a program be its own container logger: the process containerd's
// shim starts beside each container when podlife.Config.ContainerLogger names the program. The
// logger writes the container's output to the pod's log files in the CRI format, rotated by size,
// whether or not the process that manages the pod still runs.
//
// A program that is its own logger (one binary to install, as nerdctl does) starts with:
//
//	func main() {
//		if containerlogger.Invoked() {
//			containerlogger.Serve()
//		}
//		exe, _ := os.Executable()
//		cfg := podlife.Config{ContainerLogger: exe}
//		...
//	}
//
// The stand-alone logger, internal/cmd/podlife-logger, is the same code in a program of its own.
// This package owns the logger's re-exec only; it must not import podlife.
package containerlogger

import (
	"os"

	"github.com/podlife/podlife/internal/logdriver"
)

// Invoked reports whether this process was started by containerd's shim as the container logger
// of a Runtime whose Config.ContainerLogger is this program (it reads os.Args).
func Invoked() bool { return logdriver.IsLogger(os.Args[1:]) }

// Serve runs this process as a container logger (see Invoked): it writes the container's output
// to its log file until the container's task is deleted, then exits the process. It never
// returns.
func Serve() { logdriver.Main() }
