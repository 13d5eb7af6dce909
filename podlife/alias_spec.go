package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// EphemeralContainerSpec describes an ephemeral container: a container added to a running pod to
// inspect it (kubectl debug), as Kubernetes' EphemeralContainer. Its fields are documented at
// [api.EphemeralContainerSpec].
type EphemeralContainerSpec = api.EphemeralContainerSpec

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
