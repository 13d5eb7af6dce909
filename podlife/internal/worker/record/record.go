package record

import (
	"encoding/json"
	"time"

	"github.com/podlife/podlife/cni"
)

// Files in a pod's directory that let another process find the pod again.
const (
	RecordFile = "pod.json"    // Record: who manages the pod, what removing it takes
	StatusFile = "status.json" // the pod's PodStatus, rewritten on every change by its manager
)

// Record is pod.json: written once when the pod starts, read by other processes (ListPods,
// Pod.Stop, Pod.Remove) and by a process cleaning up after a manager that died.
type Record struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	UID         string            `json:"uid"`
	Created     time.Time         `json:"created"`
	OwnerPID    int               `json:"ownerPID"`
	Control     string            `json:"control,omitempty"` // the manager's control socket
	Grace       time.Duration     `json:"grace"`
	HostNetwork bool              `json:"hostNetwork,omitempty"`
	Ports       []cni.PortMapping `json:"ports,omitempty"`
	// SpecMAC and SpecMACs fingerprint the spec (see specfp.Fields), keyed with the state dir's
	// key whose ID is SpecKey (see speckey.go): an adopter's spec must match.
	SpecMAC  string            `json:"specMAC,omitempty"`
	SpecMACs map[string]string `json:"specMACs,omitempty"`
	SpecKey  string            `json:"specKey,omitempty"`
	// SpecHash and SpecFields are the unkeyed fingerprints of records written by older
	// managers: read (their pods are adopted against them), never written. A manager that
	// does not know SpecMAC sees no fingerprint and adopts unchecked.
	SpecHash   string            `json:"specHash,omitempty"`
	SpecFields map[string]string `json:"specFields,omitempty"`
	// ShimGroup is the pod's runc shim group (see Pod.shimGroup), for an adopter's restarts.
	ShimGroup string `json:"shimGroup,omitempty"`
	// Spec is the pod's spec without its Go code, credentials and values (see StoppableSpec):
	// what a process without the spec needs to stop and remove the pod with the core's own
	// stop and remove (Pod.Stop, Pod.Remove of a pod whose manager is gone).
	// Older managers' records have env values and files volumes' data in it.
	Spec json.RawMessage `json:"spec,omitempty"`
	// Network is the network the pod is attached to (see cni.Record): its removal, by any
	// process, releases the pod's attachment with it. Older records have none: their pods are
	// released with the remover's own network.
	Network *cni.Record `json:"network,omitempty"`
	// ActiveDeadline is the deadline set on the running pod (Pod.SetActiveDeadline), shorter
	// than the spec's or where it had none; Spec and the fingerprints keep the spec as started
	// (see DeadlineUpdate). Nil: the spec's.
	ActiveDeadline *time.Duration `json:"activeDeadline,omitempty"`
}
