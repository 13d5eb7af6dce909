// Package podsecurity evaluates a pod against the Kubernetes Pod Security Standards with the API
// server's own checks (k8s.io/pod-security-admission, at version "latest"). It takes the pod as
// plain data, the fields the checks read (Pod, which FromSpec fills from a podlife spec of
// package podlife/internal/api), and builds their core/v1 form itself, so that package podlife
// does not import k8s.io/api. It must not import podlife.
package podsecurity

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// Level is what Evaluate checks.
type Level int

// Levels.
const (
	// Defaults are podlife's default checks (capabilities beyond the baseline set, seccomp
	// Unconfined), at the baseline level.
	Defaults Level = iota
	// Baseline is the Pod Security Standards' baseline level.
	Baseline
	// Restricted is the Pod Security Standards' restricted level.
	Restricted
)

// Pod is what the checks read of a pod: the host namespaces, the pod's security context, the
// volumes' kinds, and its containers.
type Pod struct {
	HostNetwork, HostPID, HostIPC bool
	SecurityContext               *PodSecurityContext
	Volumes                       []Volume
	InitContainers, Containers    []Container
	EphemeralContainers           []Container
}

// PodSecurityContext is the pod's security context, as core/v1's.
type PodSecurityContext struct {
	RunAsUser, RunAsGroup *int64
	RunAsNonRoot          *bool
	SupplementalGroups    []int64
	FSGroup               *int64
	Sysctls               []Sysctl
	SeccompProfile        *SeccompProfile
}

// Sysctl is a pod's sysctl.
type Sysctl struct{ Name, Value string }

// SeccompProfile is a seccomp profile: Type is RuntimeDefault, Unconfined or Localhost.
type SeccompProfile struct{ Type, LocalhostProfile string }

// Volume is a volume's name and kind: at most one of EmptyDir, HostPath, Projected (what
// configMap, secret, downwardAPI and projected volumes are: the checks treat them alike) and
// Image is set.
type Volume struct {
	Name      string
	EmptyDir  *EmptyDir
	HostPath  *HostPath
	Projected bool
	Image     *Image
}

// EmptyDir is an emptyDir volume.
type EmptyDir struct{ Medium string }

// HostPath is a hostPath volume.
type HostPath struct{ Path, Type string }

// Image is an image volume.
type Image struct{ Reference, PullPolicy string }

// Container is what the checks read of a container.
type Container struct {
	Name, Image                                 string
	Ports                                       []Port
	LivenessProbe, ReadinessProbe, StartupProbe *Probe
	// PostStartHost and PreStopHost are the hosts the hooks reach instead of the pod's IP ("":
	// none, or no hook).
	PostStartHost, PreStopHost string
	SecurityContext            *SecurityContext
}

// Port is a container's port.
type Port struct {
	Name                    string
	ContainerPort, HostPort int32
	HostIP, Protocol        string
}

// Probe is a probe: Host is the host it reaches instead of the pod's IP, if any.
type Probe struct{ Host string }

// SecurityContext is a container's security context, as core/v1's except for Privileged and
// ProcMount, whose zero values mean unset.
type SecurityContext struct {
	RunAsUser, RunAsGroup    *int64
	RunAsNonRoot             *bool
	ReadOnlyRootFilesystem   bool
	AllowPrivilegeEscalation *bool
	Privileged               bool
	ProcMount                string
	SeccompProfile           *SeccompProfile
	Capabilities             *Capabilities
}

// Capabilities are the capabilities a container adds and drops.
type Capabilities struct{ Add, Drop []string }

// Violation is a pod refused by the checks.
type Violation struct {
	// Policy is the level and version checked, as the API server names them: "baseline:latest".
	Policy string
	// Detail is what the API server says after `violates PodSecurity "<policy>": `.
	Detail string
	// Fields are the paths of the fields that violate the policy.
	Fields []string
}

// Evaluate checks pod at level; it returns nil if the pod passes.
func Evaluate(level Level, pod *Pod) *Violation {
	all := podSecurityChecks()
	lvl, checks := api.LevelBaseline, all.all
	switch level {
	case Defaults:
		checks = all.defaults
	case Restricted:
		lvl = api.LevelRestricted
	}
	lv := api.LevelVersion{Level: lvl, Version: api.LatestVersion()}
	v1 := podSpecV1(pod)
	result := policy.AggregateCheckResults(checks.eval.EvaluatePod(lv, &metav1.ObjectMeta{}, v1))
	if result.Allowed {
		return nil
	}
	return &Violation{Policy: lv.String(), Detail: result.ForbiddenDetail(), Fields: all.fields(lv, checks, v1)}
}
