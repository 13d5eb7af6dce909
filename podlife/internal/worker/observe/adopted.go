package observe

import (
	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// Adopted is what an adopter found of a pod some other process started: the worker's Restore
// builds the pod's worker from it (worker.Observed).
type Adopted struct {
	// Spec is the pod's spec (admitted), Recorded its record's form.
	Spec, Recorded api.PodSpec
	// Handler is the containerd runtime of its containers.
	Handler tasks.Class
	// Dir is the pod's directory, Record its pod.json (read under Lock).
	Dir    string
	Record record.Record
	// Network is the network the pod is attached to (its record's).
	Network cni.Network
	// ForStop adopts the pod only to stop or remove it: nothing is resumed but exit watching,
	// and its record keeps the fingerprints it had.
	ForStop bool
	// Found is what exists of the pod in Dir and in containerd (Observe in the Host's
	// namespace, with Spec, Record's UID and Dir).
	Found *Pod
}
