package env

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// hostAllocatable returns what a kubelet on this host with nothing reserved would report as
// the node's allocatable: its CPUs (runtime.NumCPU), its memory (MemTotal of /proc/meminfo)
// and the size of its root filesystem (ephemeral storage). A resource that cannot be read is
// left out (the downward API then reports 0 for it, as the kubelet does for a resource the
// node does not report).
func hostAllocatable() corev1.ResourceList {
	l := corev1.ResourceList{
		corev1.ResourceCPU: *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI),
	}
	if n, ok := memTotal(); ok {
		l[corev1.ResourceMemory] = *resource.NewQuantity(n, resource.BinarySI)
	}
	if n, ok := rootFSSize(); ok {
		l[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(n, resource.BinarySI)
	}
	return l
}

// memTotal reads the host's memory, in bytes, from /proc/meminfo.
func memTotal() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}
