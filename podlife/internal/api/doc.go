// Package api is podlife's vocabulary: the pod and container specs and their parts, their
// defaulting pass (WithDefaults) and validation, the status snapshot types (PodStatus,
// ContainerStatus, states, Phase, conditions and their statuses), events and their reasons,
// the typed errors, and the StartPolicy interface.
//
// Package podlife re-exports the vocabulary (type aliases, constants, variables and thin
// wrapper functions), except four families that small public packages re-export instead:
// the start policies (podlife/startpolicy), the pod conditions and their statuses
// (podlife/conditions), the restart rules (podlife/restartrule) and the reasons
// (podlife/reasons). This package exists so that podlife's internal packages (the pod
// worker, the spec-to-OCI building) can share the types without importing podlife, as
// containerd's client does with its core types. The functions exported here and not
// re-exported (AllContainers, ValidateDefaulted, CapName, ...) are for podlife's packages
// only.
//
// It holds values and pure functions: no Runtime, no containerd, no I/O besides what a
// validation rule needs. It must not import package podlife or any podlife/internal package
// but apirules (the API server's validation rules); hook and probe, whose types the specs
// embed, are its only other imports from this repository.
package api
