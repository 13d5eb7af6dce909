package breakdown

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/bench/measure"
)

// processAccounting is the kernel's BSD process accounting (acct(2)), switched on for the
// breakdown measurement: the kernel appends one record per exiting process (its command name,
// pid, parent and CPU time) to a file, so that short-lived children whose time no live process
// accounts for (runc, the CNI plugins, iptables, the shim's start process) are counted one by one.
// acct(2) is host-wide: one file at a time, and it records every process of the host while on;
// the breakdown keeps the records of its own process tree only.
type processAccounting struct {
	path string
	f    *os.File
}

// acctRecordSize is the size of struct acct_v3 (linux/acct.h).
const acctRecordSize = 64

// startAccounting switches process accounting on into a new file under dir.
func startAccounting(dir string) (*processAccounting, error) {
	path := filepath.Join(dir, "pacct")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Acct(path); err != nil {
		f.Close()
		return nil, fmt.Errorf("acct(2) (process accounting; needs CONFIG_BSD_PROCESS_ACCT and root): %w", err)
	}
	return &processAccounting{path: path, f: f}, nil
}

// stop switches process accounting off.
func (a *processAccounting) stop() error {
	err := syscall.Acct("")
	return errors.Join(err, a.f.Close())
}

// offset is where the next record will be written: records between two offsets are the
// processes that exited between the two calls.
func (a *processAccounting) offset() int64 {
	fi, err := a.f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size() / acctRecordSize * acctRecordSize
}

// acctRecord is one exited process.
type acctRecord struct {
	comm      string
	pid, ppid int
	cpu       time.Duration // user + system, truncated by the kernel to 10 ms (AHZ = 100)
}

// records reads the records written between offsets from and to.
func (a *processAccounting) records(from, to int64) ([]acctRecord, error) {
	if to <= from {
		return nil, nil
	}
	b := make([]byte, to-from)
	if _, err := a.f.ReadAt(b, from); err != nil {
		return nil, err
	}
	var recs []acctRecord
	for ; len(b) >= acctRecordSize; b = b[acctRecordSize:] {
		if b[1]&0x0f != 3 { // ac_version
			return nil, fmt.Errorf("process accounting record version %d, want 3", b[1]&0x0f)
		}
		le := binary.LittleEndian
		comm, _, _ := strings.Cut(string(b[48:64]), "\x00")
		recs = append(recs, acctRecord{comm: comm, pid: int(le.Uint32(b[16:])), ppid: int(le.Uint32(b[20:])),
			cpu: compTime(le.Uint16(b[32:])) + compTime(le.Uint16(b[34:]))})
	}
	return recs, nil
}

// compTime decodes a comp_t (13-bit mantissa, 3-bit base-8 exponent) of AHZ (100 Hz) ticks.
func compTime(c uint16) time.Duration {
	return measure.Ticks(int64(c&0x1fff) << (3 * (c >> 13)))
}

// cpuGroup is a cpuacct cgroup (v1) that the bench moves its own stack into (the bench itself
// and its containerd; the shims, runc, the CNI plugins and the loggers inherit it) for an exact
// total of that stack's CPU time. The containers' own processes go to their cgroups.
type cpuGroup struct {
	dir  string
	back map[int]string // process → its cpuacct cgroup before
}

// newCPUGroup makes the cgroup and moves pids into it; nil without a cpuacct v1 hierarchy.
func newCPUGroup(name string, pids ...int) (*cpuGroup, error) {
	const root = "/sys/fs/cgroup/cpuacct"
	if _, err := os.Stat(filepath.Join(root, "cpuacct.usage")); err != nil {
		return nil, nil
	}
	g := &cpuGroup{dir: filepath.Join(root, name), back: map[int]string{}}
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		return nil, err
	}
	for _, pid := range pids {
		g.back[pid] = filepath.Join(root, cpuacctPath(pid))
		if err := os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			g.close()
			return nil, err
		}
	}
	return g, nil
}

// usage is the group's CPU time so far.
func (g *cpuGroup) usage() time.Duration {
	if g == nil {
		return 0
	}
	b, _ := os.ReadFile(filepath.Join(g.dir, "cpuacct.usage"))
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return time.Duration(n)
}

// close moves the processes back and removes the group (once the shims are gone).
func (g *cpuGroup) close() {
	if g == nil {
		return
	}
	for pid, dir := range g.back {
		_ = os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
	}
	for range 50 {
		if err := os.Remove(g.dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cpuacctPath is the cpuacct cgroup of process pid ("/" if unknown).
func cpuacctPath(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && (f[1] == "cpuacct" || strings.Contains(f[1], "cpuacct")) {
			return f[2]
		}
	}
	return "/"
}

// pids are the processes in the group now.
func (g *cpuGroup) pids() []int {
	if g == nil {
		return nil
	}
	b, _ := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}
