package api

import "testing"

func TestCapName(t *testing.T) {
	for in, want := range map[string]string{"net_admin": "CAP_NET_ADMIN", "CAP_SYS_TIME": "CAP_SYS_TIME", "cap_chown": "CAP_CHOWN", "all": "ALL"} {
		if got := CapName(in); got != want {
			t.Errorf("capName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSysctlDots(t *testing.T) {
	for in, want := range map[string]string{
		"net.ipv4.ip_local_port_range":     "net.ipv4.ip_local_port_range",
		"net/ipv4/ip_local_port_range":     "net.ipv4.ip_local_port_range",
		"net/ipv4/conf/eth0.100/rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"kernel":                           "kernel",
	} {
		if got := SysctlDots(in); got != want {
			t.Errorf("sysctlDots(%q) = %q, want %q", in, got, want)
		}
	}
}
