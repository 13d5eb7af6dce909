package main

import (
	"flag"
	"strings"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podsecurity"
)

// securityFlags are run's switches for what pods' security contexts may ask for.
type securityFlags struct {
	allowPrivileged bool
	allowHostNS     bool
	unsafeSysctls   string
	seccompRoot     string
	podSecurity     string
	allowedCaps     string
}

func addSecurityFlags(fs *flag.FlagSet) *securityFlags {
	s := &securityFlags{}
	fs.BoolVar(&s.allowPrivileged, "allow-privileged", false, "allow containers with securityContext.privileged (Config.AllowPrivileged)")
	fs.BoolVar(&s.allowHostNS, "allow-host-namespaces", false, "allow pods with hostPID or hostIPC (Config.AllowHostNamespaces)")
	fs.StringVar(&s.unsafeSysctls, "allowed-unsafe-sysctls", "", `comma-separated namespaced sysctls (or prefixes ending in "*") pods may set beyond the safe set`)
	fs.StringVar(&s.seccompRoot, "seccomp-profile-root", "", "directory of Localhost seccomp profiles (Config.SeccompProfileRoot)")
	fs.StringVar(&s.podSecurity, "pod-security", "", `Pod Security Standards level pods must meet: "privileged", "baseline" or "restricted" (Config.PodSecurity); default: only capabilities beyond baseline's and seccomp Unconfined are refused`)
	fs.StringVar(&s.allowedCaps, "allowed-capabilities", "", "comma-separated capabilities containers may add beyond the baseline set (Config.AllowedCapabilities)")
	return s
}

// apply sets the flags on a Runtime's configuration.
func (s *securityFlags) apply(cfg *podlife.Config) {
	cfg.AllowPrivileged = s.allowPrivileged
	cfg.AllowHostNamespaces = s.allowHostNS
	cfg.SeccompProfileRoot = s.seccompRoot
	cfg.PodSecurity = podsecurity.Level(s.podSecurity)
	cfg.AllowedUnsafeSysctls = append(cfg.AllowedUnsafeSysctls, splitList(s.unsafeSysctls)...)
	cfg.AllowedCapabilities = append(cfg.AllowedCapabilities, splitList(s.allowedCaps)...)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
