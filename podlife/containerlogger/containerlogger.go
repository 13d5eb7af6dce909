// Package containerlogger lets a program be its own container logger: the process containerd's
// shim starts beside each container when podlife.Config.ContainerLogger names the program, which
// hands the container's output to the state dir's shared logger (the program re-executed once,
// in a session of its own) and exits. The shared logger writes every container's output to the
// pods' log files in the CRI format, rotated by size, whether or not the process that manages the
// pods still runs.
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
// of a Runtime whose Config.ContainerLogger is this program, or as the shared logger (it reads
// os.Args).
func Invoked() bool { return logdriver.IsLogger(os.Args[1:]) }

// Serve runs this process as a container logger (see Invoked): it hands the container's output to
// the shared logger and exits, or, as the shared logger, writes the containers' output to their
// log files until none is left, then exits the process. It never returns.
func Serve() { logdriver.Main() }
