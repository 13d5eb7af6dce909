package containerspec

import (
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// VerifyNonRoot checks the pod's and the container's runAsNonRoot against the user the
// container runs as (imageUser, its image's, when its spec sets none): a *ConfigError if it
// would run as root (see ocibuild.Security.VerifyRunAsNonRoot).
func VerifyNonRoot(pod *api.PodSpec, c *api.ContainerSpec, imageUser string) error {
	e := ocibuild.SecurityOf(pod, c)
	if err := e.VerifyRunAsNonRoot(pod.Name, pod.Namespace, c.Name, imageUser); err != nil {
		return &ConfigError{Err: err}
	}
	return nil
}
