package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// AllContainersRestarting is the pod condition of a restart of all its containers (a
// RestartAllContainers rule): True while they are stopped, False once they start again.
const AllContainersRestarting = api.AllContainersRestarting
