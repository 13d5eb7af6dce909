package api

import (
	"strings"
)

// adds tells whether the capabilities add name (or ALL).
func (c *Capabilities) adds(name string) bool {
	if c == nil {
		return false
	}
	for _, a := range c.Add {
		if n := CapName(a); n == name || n == CapAll {
			return true
		}
	}
	return false
}

// CapAll is the capability name that means every capability.
const CapAll = "ALL"

// CapName normalises a capability name the way the kubelet and containerd accept them:
// upper case, with the CAP_ prefix ("net_admin", "CAP_NET_ADMIN" → "CAP_NET_ADMIN"); ALL stays ALL.
func CapName(s string) string {
	u := strings.ToUpper(s)
	if u == CapAll || strings.HasPrefix(u, "CAP_") {
		return u
	}
	return "CAP_" + u
}

// KnownCapabilities are the Linux capabilities, in bit order (linux/capability.h).
var KnownCapabilities = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
	"CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
	"CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
}
