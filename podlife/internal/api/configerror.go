package api

import (
	"errors"
)

// ErrCreateContainerConfig: a container's settings contradict its image or each other, so it
// cannot be created (runAsNonRoot with a runAsUser of 0, or with an image whose user is root or
// a name): the kubelet's CreateContainerConfigError. As on a kubelet the pod is not refused:
// it stays, that container stays Waiting with reason CreateContainerConfigError and the
// kubelet's message (with a Warning event, reason Failed), and the pod's other containers
// start as their start policy says. Run returns the pod with a *StartError (step create)
// wrapping this error.
var ErrCreateContainerConfig = errors.New("container config error")
