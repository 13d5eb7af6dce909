package usage

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// readNetDev reads the interface counters of the network namespace of process pid: its
// /proc/<pid>/net/dev shows its namespace's interfaces without entering it.
func readNetDev(pid uint32) (*NetworkUsage, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/dev", pid))
	if err != nil {
		return nil, err
	}
	return parseNetDev(data)
}

// parseNetDev parses /proc/net/dev: two header lines, then per interface "name:" and 16
// counters (8 receive: bytes packets errs drop fifo frame compressed multicast; 8 transmit:
// bytes packets errs drop fifo colls carrier compressed).
func parseNetDev(data []byte) (*NetworkUsage, error) {
	out := &NetworkUsage{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 0; sc.Scan(); line++ {
		if line < 2 {
			continue
		}
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			return nil, fmt.Errorf("net/dev: line %d: no interface name", line+1)
		}
		f := strings.Fields(rest)
		if len(f) < 16 {
			return nil, fmt.Errorf("net/dev: line %d: %d fields", line+1, len(f))
		}
		var n [16]uint64
		for i := range n {
			v, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("net/dev: line %d: %w", line+1, err)
			}
			n[i] = v
		}
		iu := InterfaceUsage{Name: strings.TrimSpace(name),
			RxBytes: n[0], RxPackets: n[1], RxErrors: n[2], RxDropped: n[3],
			TxBytes: n[8], TxPackets: n[9], TxErrors: n[10], TxDropped: n[11]}
		out.Interfaces = append(out.Interfaces, iu)
		if iu.Name == "lo" {
			continue
		}
		out.RxBytes += iu.RxBytes
		out.RxPackets += iu.RxPackets
		out.RxErrors += iu.RxErrors
		out.RxDropped += iu.RxDropped
		out.TxBytes += iu.TxBytes
		out.TxPackets += iu.TxPackets
		out.TxErrors += iu.TxErrors
		out.TxDropped += iu.TxDropped
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out.Interfaces, func(i, j int) bool { return out.Interfaces[i].Name < out.Interfaces[j].Name })
	return out, nil
}
