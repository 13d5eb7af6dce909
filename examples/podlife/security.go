package main

import (
	"flag"
	"strings"

	"github.com/podlife/podlife/podlife"
)

// securityFlags are run's switches for what pods' security contexts may ask for.
type securityFlags struct {
	allowPrivileged bool
	allowHostNS     bool
	unsafeSysctls   string
	seccompRoot     string
}

func addSecurityFlags(fs *flag.FlagSet) *securityFlags {
	s := &securityFlags{}
	fs.BoolVar(&s.allowPrivileged, "allow-privileged", false, "allow containers with securityContext.privileged (Config.AllowPrivileged)")
	fs.BoolVar(&s.allowHostNS, "allow-host-namespaces", false, "allow pods with hostPID or hostIPC (Config.AllowHostNamespaces)")
	fs.StringVar(&s.unsafeSysctls, "allowed-unsafe-sysctls", "", `comma-separated namespaced sysctls (or prefixes ending in "*") pods may set beyond the safe set`)
	fs.StringVar(&s.seccompRoot, "seccomp-profile-root", "", "directory of Localhost seccomp profiles (Config.SeccompProfileRoot)")
	return s
}

// apply sets the flags on a Runtime's configuration.
func (s *securityFlags) apply(cfg *podlife.Config) {
	cfg.AllowPrivileged = s.allowPrivileged
	cfg.AllowHostNamespaces = s.allowHostNS
	cfg.SeccompProfileRoot = s.seccompRoot
	for _, p := range strings.Split(s.unsafeSysctls, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.AllowedUnsafeSysctls = append(cfg.AllowedUnsafeSysctls, p)
		}
	}
}
