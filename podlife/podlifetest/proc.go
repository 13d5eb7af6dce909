package podlifetest

import (
	"os/exec"

	"github.com/podlife/podlife/internal/procutil"
)

// startProcess starts cmd with sysProcAttr: in a process group of its own,
// and killed by the kernel if this process dies first (see package procutil
// for why that needs a locked thread).
func startProcess(cmd *exec.Cmd) (*procutil.Process, error) {
	cmd.SysProcAttr = sysProcAttr()
	return procutil.Start(cmd)
}
