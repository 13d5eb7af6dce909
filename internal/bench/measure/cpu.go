package measure

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPUTime is the machine's busy CPU time so far (all processes: podlife, containerd, shims, runc).
func CPUTime() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return Ticks(busy)
}

// ProcessCPU is the CPU time (user + system) this process has used so far: the managing
// process, podlife and its probe workers included, containerd and the shims not.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TreeCPU is the CPU time (user + system) of the processes roots and of all their descendants,
// those already reaped by one of them included (a reaped child's time moves into its parent's
// cutime and cstime). With containerd and the shims as roots, it covers runc, the exec'd
// processes of probes and the containers' own processes.
func TreeCPU(roots []int) time.Duration {
	type proc struct {
		ppid  int
		ticks int64
	}
	procs := map[int]proc{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if ppid, ticks, ok := procStat(pid); ok {
			procs[pid] = proc{ppid: ppid, ticks: ticks}
		}
	}
	isRoot := map[int]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	var total int64
	for pid, p := range procs {
		for a := pid; a > 1; a = procs[a].ppid {
			if isRoot[a] {
				total += p.ticks
				break
			}
		}
	}
	return Ticks(total)
}

// PIDCPU is the CPU time of process pid and of its children already reaped.
func PIDCPU(pid int) time.Duration {
	_, t, _ := procStat(pid)
	return Ticks(t)
}

// OwnCPU is the CPU time of process pid itself, without its children.
func OwnCPU(pid int) time.Duration {
	_, t, _ := procStatFields(pid, 2)
	return Ticks(t)
}

// procStat reads a process's parent and its utime + stime + cutime + cstime, in clock ticks.
func procStat(pid int) (ppid int, ticks int64, ok bool) {
	return procStatFields(pid, 4)
}

// procStatFields reads a process's parent and the sum of the first n of its utime, stime,
// cutime and cstime, in clock ticks.
func procStatFields(pid, n int) (ppid int, ticks int64, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ... utime(14) stime cutime cstime; comm may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, state
	if len(f) < 15 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	for _, v := range f[11 : 11+n] {
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return ppid, ticks, true
}

// Ticks converts clock ticks (USER_HZ) to a duration.
func Ticks(n int64) time.Duration { return time.Duration(n) * time.Second / 100 }
