package containerspec

import (
	"strings"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/internal/api"
)

// GracePeriod is the pod's termination grace period (defaulted at admission: see WithDefaults).
func GracePeriod(s *api.PodSpec) time.Duration {
	return *s.TerminationGracePeriod
}

// PortMappings lists the host ports the pod publishes, for CNI portmap.
func PortMappings(s *api.PodSpec) []cni.PortMapping {
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
