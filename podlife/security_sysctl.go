package podlife

import "strings"

// safeSysctls is the kubelet's safe set (pkg/kubelet/sysctl/safe_sysctls.go): namespaced
// and isolated between pods. The tcp_keepalive_*, tcp_fin_timeout, tcp_rmem and tcp_wmem
// entries need a kernel of 4.15 or later, as the kubelet checks.
var safeSysctls = map[string]bool{
	"kernel.shm_rmid_forced":              true,
	"net.ipv4.ip_local_port_range":        true,
	"net.ipv4.tcp_syncookies":             true,
	"net.ipv4.ping_group_range":           true,
	"net.ipv4.ip_unprivileged_port_start": true,
	"net.ipv4.ip_local_reserved_ports":    true,
	"net.ipv4.tcp_keepalive_time":         true,
	"net.ipv4.tcp_fin_timeout":            true,
	"net.ipv4.tcp_keepalive_intvl":        true,
	"net.ipv4.tcp_keepalive_probes":       true,
	"net.ipv4.tcp_rmem":                   true,
	"net.ipv4.tcp_wmem":                   true,
}

// sysctlNamespace says which namespace a sysctl belongs to ("net" or "ipc"), or "" if it
// is not namespaced (the kubelet's pkg/kubelet/sysctl/namespace.go).
func sysctlNamespace(name string) string {
	switch {
	case strings.HasPrefix(name, "net."):
		return "net"
	case name == "kernel.sem", strings.HasPrefix(name, "kernel.shm"), strings.HasPrefix(name, "kernel.msg"),
		strings.HasPrefix(name, "fs.mqueue."):
		return "ipc"
	}
	return ""
}

// sysctlDots converts a sysctl name with "/" separators to the dotted form, as the kubelet
// does: "net/ipv4/conf/eth0.100/rp_filter" → "net.ipv4.conf.eth0/100.rp_filter".
func sysctlDots(name string) string {
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

// allowedSysctl tells whether a sysctl matches one of the patterns (a name, or a prefix
// ending in "*").
func allowedSysctl(name string, patterns []string) bool {
	for _, p := range patterns {
		p = sysctlDots(p)
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(name, prefix) || p == name {
			return true
		}
	}
	return false
}
