package podlifetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ShimLeaks lists the containerd shim processes still serving containerd namespace ns. A shim
// exits a moment after its last task is deleted, so it waits until ctx is done for them to go
// before reporting the ones left.
func ShimLeaks(ctx context.Context, ns string) []string {
	for {
		pids := ShimPIDs(ns)
		if len(pids) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			out := make([]string, len(pids))
			for i, pid := range pids {
				out[i] = fmt.Sprintf("shim process %d of namespace %q", pid, ns)
			}
			return out
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ShimPIDs returns the PIDs of the runc shims whose command line names containerd namespace
// ns (zombies excluded).
func ShimPIDs(ns string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if !strings.Contains(args[0], "containerd-shim") {
			continue
		}
		if i := slices.Index(args, "-namespace"); i < 0 || i+1 >= len(args) || args[i+1] != ns {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(p)), "%d", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}
