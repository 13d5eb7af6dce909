package admission

import (
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

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

// allowedSysctl tells whether a sysctl matches one of the patterns (a name, or a prefix
// ending in "*").
func allowedSysctl(name string, patterns []string) bool {
	for _, p := range patterns {
		p = api.SysctlDots(p)
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(name, prefix) || p == name {
			return true
		}
	}
	return false
}
