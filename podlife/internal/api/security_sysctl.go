package api

import (
	"strings"
)

// SysctlNamespace says which namespace a sysctl belongs to ("net" or "ipc"), or "" if it
// is not namespaced (the kubelet's pkg/kubelet/sysctl/namespace.go).
func SysctlNamespace(name string) string {
	switch {
	case strings.HasPrefix(name, "net."):
		return "net"
	case name == "kernel.sem", strings.HasPrefix(name, "kernel.shm"), strings.HasPrefix(name, "kernel.msg"),
		strings.HasPrefix(name, "fs.mqueue."):
		return "ipc"
	}
	return ""
}

// SysctlDots converts a sysctl name with "/" separators to the dotted form, as the kubelet
// does: "net/ipv4/conf/eth0.100/rp_filter" → "net.ipv4.conf.eth0/100.rp_filter".
func SysctlDots(name string) string {
	i := strings.IndexAny(name, "./")
	if i < 0 || name[i] == '.' {
		return name
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return '/'
		case '/':
			return '.'
		}
		return r
	}, name)
}
