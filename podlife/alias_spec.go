package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// EphemeralContainerSpec describes an ephemeral container: a container added to a running pod to
// inspect it (kubectl debug), as Kubernetes' EphemeralContainer. Its fields are documented at
// [api.EphemeralContainerSpec].
type EphemeralContainerSpec = api.EphemeralContainerSpec

// Starter is a start policy's handle on the pod it starts. Its methods are documented at
// [api.Starter].
type Starter = api.Starter

// StartPolicy decides when each of a pod's app containers starts. Its methods are documented at
// [api.StartPolicy].
type StartPolicy = api.StartPolicy

// Sequential is the kubelet's order and podlife's default: containers start one at a time in spec
// order, and each container's postStart hook must return before the next container starts.
func Sequential() StartPolicy {
	return api.Sequential()
}

// Parallel starts up to limit containers at once (limit <= 0 means all at once).
func Parallel(limit int) StartPolicy {
	return api.Parallel(limit)
}

// PodSecurityContext holds the security settings of every container of a pod, as Kubernetes'
// pod-level securityContext. Its fields are documented at [api.PodSecurityContext].
type PodSecurityContext = api.PodSecurityContext

// SecurityContext holds one container's security settings, as Kubernetes' container-level
// securityContext. Its fields are documented at [api.SecurityContext].
type SecurityContext = api.SecurityContext

// Capabilities are Linux capabilities added to or dropped from the default set. Its fields are
// documented at [api.Capabilities].
type Capabilities = api.Capabilities

// Sysctl is a kernel parameter: a name such as "net.ipv4.ip_local_port_range" (or with "/"
// separators) and its value. Its fields are documented at [api.Sysctl].
type Sysctl = api.Sysctl

// SeccompProfile selects a container's seccomp filter. Its fields are documented at
// [api.SeccompProfile].
type SeccompProfile = api.SeccompProfile

// SeccompProfileType is the kind of a seccomp profile.
type SeccompProfileType = api.SeccompProfileType

// Seccomp profile types.
const (
	// SeccompRuntimeDefault is containerd's default profile (Docker's): the default.
	SeccompRuntimeDefault = api.SeccompRuntimeDefault
	// SeccompUnconfined applies no filter.
	SeccompUnconfined = api.SeccompUnconfined
	// SeccompLocalhost loads a profile file under Config.SeccompProfileRoot.
	SeccompLocalhost = api.SeccompLocalhost
)

// ProcMountType is how /proc is mounted in a container.
type ProcMountType = api.ProcMountType

// ProcMountDefault masks and makes read-only the sensitive paths of /proc: the default, and the
// only proc mount type podlife supports (Unmasked needs user namespaces).
const ProcMountDefault = api.ProcMountDefault

// PodSpec describes a pod: its containers, volumes, network and policies. Its fields are documented
// at [api.PodSpec].
type PodSpec = api.PodSpec

// ContainerSpec describes one container of a pod. Its fields are documented at [api.ContainerSpec].
type ContainerSpec = api.ContainerSpec

// TerminationMessagePolicy says where a container's termination message comes from.
type TerminationMessagePolicy = api.TerminationMessagePolicy

// Termination message policies, as Kubernetes'.
const (
	// TerminationMessageReadFile: the message is the content of the container's TerminationMessagePath
	// (the default).
	TerminationMessageReadFile = api.TerminationMessageReadFile
	// TerminationMessageFallbackToLogsOnError: as File, but a container that exited with a non-zero
	// code and left the file empty gets the tail of its log as its message.
	TerminationMessageFallbackToLogsOnError = api.TerminationMessageFallbackToLogsOnError
)

// Resources are a container's CPU and memory limits and requests, in Kubernetes' units: CPU in
// millicores, memory in bytes. Its fields are documented at [api.Resources].
type Resources = api.Resources

// Dependency is a condition on another container of the same pod. Its fields are documented at
// [api.Dependency].
type Dependency = api.Dependency

// DependencyCondition is what a Dependency waits for.
type DependencyCondition = api.DependencyCondition

// Dependency conditions.
const (
	// ContainerStarted: the container's process started and its postStart hook and startup probe (if
	// any) succeeded.
	ContainerStarted = api.ContainerStarted
	// ContainerReady: the container is ready (its readiness probe, if any, succeeds).
	ContainerReady = api.ContainerReady
	// ContainerCompleted: the container exited with code 0.
	ContainerCompleted = api.ContainerCompleted
)

// EnvVar is an environment variable of a container: Value, or with From set, a value of the running
// pod that podlife resolves when it creates the container (Value must then be empty). Its fields
// are documented at [api.EnvVar].
type EnvVar = api.EnvVar

// ContainerPort is a port of a container. Its fields are documented at [api.ContainerPort].
type ContainerPort = api.ContainerPort

// Protocol is a network protocol of a port.
type Protocol = api.Protocol

// Protocols.
const (
	ProtocolTCP  = api.ProtocolTCP
	ProtocolUDP  = api.ProtocolUDP
	ProtocolSCTP = api.ProtocolSCTP
)

// VolumeMount mounts a pod volume into a container. Its fields are documented at [api.VolumeMount].
type VolumeMount = api.VolumeMount

// Volume is a pod volume. Its fields are documented at [api.Volume].
type Volume = api.Volume

// ImageVolume mounts an image's filesystem read-only: a view of its unpacked snapshot, no copy. Its
// fields are documented at [api.ImageVolume].
type ImageVolume = api.ImageVolume

// FilesVolume is a read-only directory of given files. Its fields are documented at
// [api.FilesVolume].
type FilesVolume = api.FilesVolume

// File is one file of a FilesVolume. Its fields are documented at [api.File].
type File = api.File

// EmptyDirVolume is an empty directory that lives as long as the pod. Its fields are documented at
// [api.EmptyDirVolume].
type EmptyDirVolume = api.EmptyDirVolume

// StorageMedium is where an emptyDir lives.
type StorageMedium = api.StorageMedium

// Storage media.
const (
	MediumDefault = api.MediumDefault
	MediumMemory  = api.MediumMemory
)

// HostPathVolume is a path on the host. Its fields are documented at [api.HostPathVolume].
type HostPathVolume = api.HostPathVolume

// HostPathType is the kind of check made on a hostPath volume.
type HostPathType = api.HostPathType

// Host path types (a subset of Kubernetes').
const (
	HostPathUnset             = api.HostPathUnset
	HostPathDirectoryOrCreate = api.HostPathDirectoryOrCreate
	HostPathDirectory         = api.HostPathDirectory
	HostPathFileOrCreate      = api.HostPathFileOrCreate
	HostPathFile              = api.HostPathFile
)

// DNSConfig is the pod's /etc/resolv.conf. Its fields are documented at [api.DNSConfig].
type DNSConfig = api.DNSConfig

// HostAlias adds an /etc/hosts line. Its fields are documented at [api.HostAlias].
type HostAlias = api.HostAlias

// RegistryCredential authenticates pulls from one registry host. Its fields are documented at
// [api.RegistryCredential].
type RegistryCredential = api.RegistryCredential

// PullPolicy says when to pull a container's image.
type PullPolicy = api.PullPolicy

// Pull policies.
const (
	PullAlways       = api.PullAlways
	PullIfNotPresent = api.PullIfNotPresent
	PullNever        = api.PullNever
)

// RestartPolicy says whether exited containers are restarted.
type RestartPolicy = api.RestartPolicy

// Restart policies.
const (
	RestartAlways    = api.RestartAlways
	RestartOnFailure = api.RestartOnFailure
	RestartNever     = api.RestartNever
)

// ContainerRestartRule restarts a container on a matching exit code (ContainerRestartRules).
type ContainerRestartRule = api.ContainerRestartRule

// ContainerRestartRuleAction is what a matching restart rule does.
type ContainerRestartRuleAction = api.ContainerRestartRuleAction

// RestartRuleActionRestart restarts the container.
const RestartRuleActionRestart = api.RestartRuleActionRestart

// RestartRuleActionRestartAllContainers restarts the whole pod in place: every container is
// stopped, the init containers run again in order, then the others start.
const RestartRuleActionRestartAllContainers = api.RestartRuleActionRestartAllContainers

// ContainerRestartRuleOnExitCodes matches an exit code against a set.
type ContainerRestartRuleOnExitCodes = api.ContainerRestartRuleOnExitCodes

// ContainerRestartRuleOnExitCodesOperator relates an exit code to a rule's values.
type ContainerRestartRuleOnExitCodesOperator = api.ContainerRestartRuleOnExitCodesOperator

// Exit-code operators of a restart rule.
const (
	RestartRuleOpIn    = api.RestartRuleOpIn
	RestartRuleOpNotIn = api.RestartRuleOpNotIn
)
