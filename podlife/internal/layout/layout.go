// Package layout names the few facts about podlife's state dir and containerd objects that
// packages other than podlife need (podlife/daemon, to stop a state dir's private containerd
// only when no pod is left; podlife/internal/gc, to tell a pod's objects and records). Package
// podlife spells the same values in its constants (DefaultStateDir, and unexported ones such as
// its labelPod); a test there keeps them equal. It imports nothing of podlife.
//
// Its tests also hold the repository's package arrows (arrows_test.go: which package must not
// import which, checked with go list on the transitive imports).
package layout

import "path/filepath"

const (
	// DefaultStateDir is the state dir of a Config that names none (podlife.DefaultStateDir).
	DefaultStateDir = "/var/lib/podlife"
	// LabelPod is the containerd label with a pod's name.
	LabelPod = "podlife.io/pod"
	// LabelPodUID is the containerd label with a pod's UID.
	LabelPodUID = "podlife.io/pod-uid"
	// LabelStateDir is the containerd label with the state dir of the Runtime that created
	// the object: the startup garbage collection deletes only its own state dir's objects.
	LabelStateDir = "podlife.io/state-dir"
	// RecordFile is the name of a pod's record in its directory (who manages the pod, what
	// removing it takes).
	RecordFile = "pod.json"
	// SandboxFile is the name of a pod's sandbox record in its directory (its network
	// attachment).
	SandboxFile = "sandbox.json"
)

// PodsDir is the directory of the state dir that holds one directory per pod.
func PodsDir(stateDir string) string { return filepath.Join(stateDir, "pods") }

// PrivateDir is the directory of the state dir's private containerd (podlife.EmbeddedConfig).
func PrivateDir(stateDir string) string { return filepath.Join(stateDir, "containerd") }

// PoolDir is the directory of the state dir that holds one directory per warm pool member
// (podlife.Runtime.Prewarm): a pod's directory whose pod has no name yet. Each holds
// PoolMemberFile and is flocked (its adoption lock) by the process that keeps it.
func PoolDir(stateDir string) string { return filepath.Join(stateDir, "pool") }

// PoolMemberFile is the name of a warm pool member's record in its directory.
const PoolMemberFile = "member.json"
