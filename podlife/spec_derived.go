package podlife

import (
	"strings"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/internal/api"
)

// gracePeriod is the pod's termination grace period (defaulted at admission: see WithDefaults).
func gracePeriod(s *PodSpec) time.Duration {
	return *s.TerminationGracePeriod
}

// portMappings lists the host ports the pod publishes, for CNI portmap.
func portMappings(s *PodSpec) []cni.PortMapping {
	var pms []cni.PortMapping
	for _, c := range api.AllContainers(s) {
		for _, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			pms = append(pms, cni.PortMapping{HostPort: p.HostPort, ContainerPort: p.ContainerPort,
				Protocol: strings.ToLower(string(p.Protocol)), HostIP: p.HostIP})
		}
	}
	return pms
}
