package api

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/probe"
)

// PodSpec describes a pod: its containers, volumes, network and policies. Field names and
// semantics follow Kubernetes' core/v1 Pod so that users recognise them; durations are Go
// durations. A zero value of an optional field means the Kubernetes default.
type PodSpec struct {
	// Name identifies the pod on this runtime: a DNS-1123 label, unique among running pods.
	Name string
	// Namespace is informational (it appears in /etc/hosts search paths and labels); default "default".
	Namespace string
	// Labels are copied onto every containerd object of the pod.
	Labels map[string]string
	// Hostname is the pod's hostname (its UTS namespace's); default Name. Ignored with
	// HostNetwork. A DNS-1123 subdomain of at most 63 characters, as the kubelet accepts
	// Kubernetes' hostnameOverride (podlife/kube refuses a spec.hostname that is not a label).
	Hostname string
	// HostNetwork runs the pod in the host's network (and UTS) namespace: no CNI, no pod IP of its own.
	HostNetwork bool
	// HostPID runs the containers in the host's PID namespace: they see (and, with the
	// capabilities, signal) every process of the host. Refused unless Config.AllowHostNamespaces.
	HostPID bool
	// HostIPC runs the containers in the host's IPC namespace: System V IPC objects and POSIX
	// message queues are the host's. Refused unless Config.AllowHostNamespaces.
	HostIPC bool
	// ShareProcessNamespace puts all the pod's containers in one PID namespace whose PID 1 is a
	// pause process (catatonit, see Config.PauseBinary): the containers see and signal each
	// other's processes and reach each other's filesystems through /proc/<pid>/root. Only such
	// pods have a pause process. It cannot be combined with HostPID.
	ShareProcessNamespace bool
	// RuntimeClassName runs the pod's containers with a runtime class (Kubernetes'
	// runtimeClassName): one of Config.RuntimeClasses, or the built-in "crun" (when crun is in
	// PATH). Empty means Config.RuntimeName with its defaults (runc). A class the Runtime does
	// not know is refused at spec.runtimeClassName.
	RuntimeClassName string
	// DNS overrides /etc/resolv.conf; nil copies the host's resolv.conf.
	DNS *DNSConfig
	// HostAliases are extra /etc/hosts entries.
	HostAliases []HostAlias
	// Volumes can be mounted by the pod's containers.
	Volumes []Volume
	// InitContainers run one at a time, in order, each to a successful exit, before Containers start.
	InitContainers []ContainerSpec
	// Containers are the pod's application containers.
	Containers []ContainerSpec
	// RestartPolicy is Always (default), OnFailure or Never.
	RestartPolicy RestartPolicy
	// TerminationGracePeriod bounds preStop hooks plus the stop signal before SIGKILL; nil means 30 s.
	// Zero is allowed and means "kill at once" (a 2 s minimum still applies after the stop signal, as in the kubelet).
	TerminationGracePeriod *time.Duration
	// StartPolicy decides when each container's process starts; nil means Sequential(), the kubelet's order.
	StartPolicy StartPolicy
	// ActiveDeadline, if set, bounds how long the pod may run (activeDeadlineSeconds): then it is
	// stopped gracefully and ends Failed with reason DeadlineExceeded. Pod.SetActiveDeadline
	// sets or shortens it on the running pod.
	ActiveDeadline *time.Duration
	// PullCredentials authenticate image pulls for this pod (like imagePullSecrets).
	PullCredentials []RegistryCredential
	// SecurityContext holds the security settings of all the pod's containers; nil means the
	// defaults (see docs/concepts.md, "Security contexts").
	SecurityContext *PodSecurityContext
	// Resources limits the pod as a whole (Kubernetes' pod-level resources): when set, the
	// pod gets a cgroup of its own with these limits, its containers' cgroups under it (each
	// container's own Resources still apply within).
	Resources Resources
	// ReadinessGates are conditions (set with Pod.SetCondition) that must all be True, besides
	// every container being ready, for the pod to be Ready (Kubernetes' readinessGates).
	ReadinessGates []ConditionType
}

// ContainerSpec describes one container of a pod.
type ContainerSpec struct {
	// Name is a DNS-1123 label, unique within the pod (init containers included).
	Name string
	// Image is an image reference ("busybox", "registry:5000/app:1.2", "app@sha256:...").
	Image string
	// ImagePullPolicy is Always, IfNotPresent or Never; empty means the Kubernetes default:
	// Always for a ":latest" or untagged image, IfNotPresent otherwise.
	ImagePullPolicy PullPolicy
	// Command replaces the image's ENTRYPOINT; Args replace its CMD (Kubernetes semantics).
	Command, Args []string
	// Env is added to the image's environment; later entries win.
	Env []EnvVar
	// WorkingDir overrides the image's working directory.
	WorkingDir string
	// Ports documents the container's ports; a HostPort maps it on the host (CNI portmap).
	Ports []ContainerPort
	// VolumeMounts mount pod volumes into the container.
	VolumeMounts []VolumeMount
	// PostStart runs right after the container's process started. Under Sequential() the next
	// container does not start until it returns. A failure kills the container.
	PostStart hook.Handler
	// PreStop runs before the stop signal when podlife stops the container, inside the grace period.
	PreStop hook.Handler
	// HookTimeout bounds each lifecycle hook of this container; zero means no timeout (the kubelet's behaviour).
	// A stop always bounds preStop by the grace period and cancels a running postStart.
	HookTimeout time.Duration
	// StopSignal is sent to stop the container; zero means the image's STOPSIGNAL, else SIGTERM.
	StopSignal syscall.Signal
	// StartupProbe, if set, must succeed before the container counts as started; the other probes
	// wait for it. A failure (after its threshold) kills and restarts the container.
	StartupProbe *probe.Spec
	// ReadinessProbe decides whether the container is ready; it never restarts anything.
	ReadinessProbe *probe.Spec
	// LivenessProbe restarts the container (per the pod's restart policy) when it fails.
	LivenessProbe *probe.Spec
	// RestartPolicy, on an init container, may be Always: the container is then a native
	// sidecar: it starts in order with the init containers, the next one starts once it has
	// started (its startupProbe succeeded, if it has one), it is restarted whenever it exits,
	// and it stops after the app containers, in reverse order. Otherwise (Always, OnFailure or
	// Never on an app container, OnFailure or Never on an init container) it replaces the pod's
	// policy for this container (Kubernetes' ContainerRestartRules). Empty: the pod's policy.
	RestartPolicy RestartPolicy
	// RestartPolicyRules, evaluated in order when the container exits, restart it on a
	// matching exit code whatever RestartPolicy says (the first matching rule decides); they
	// need a RestartPolicy and are not allowed on a sidecar. See RestartsAfter.
	RestartPolicyRules []ContainerRestartRule `fingerprint:"omitzero"`
	// DependsOn makes the container wait, under the DependencyOrder() start policy, until other
	// containers of the pod reach a condition (podlife's extension, like Compose's depends_on).
	DependsOn []Dependency
	// Resources limits the container's CPU and memory (cgroups) and its local storage (eviction).
	// Pod.Resize changes its CPU and memory while the container runs.
	Resources Resources
	// ResizePolicy says, per resource, whether a resize of the running container (Pod.Resize)
	// restarts it (Kubernetes' resizePolicy). Zero: resized in place.
	ResizePolicy ResizePolicy `fingerprint:"omitzero"`
	// SecurityContext holds the container's security settings; its fields override the pod's.
	SecurityContext *SecurityContext
	// TerminationMessagePath is the file in the container whose content becomes its
	// terminated state's Message when it exits (the last 4096 bytes, as the kubelet reads it);
	// empty means /dev/termination-log. Each run of the container gets a new empty file there,
	// writable by any user, kept under the pod's directory on the host.
	TerminationMessagePath string `fingerprint:"omitzero"`
	// TerminationMessagePolicy is File (empty: the message is the file's content) or
	// FallbackToLogsOnError (a container that failed and left the file empty gets the last 80
	// lines, at most 2048 bytes, of its log as its message).
	TerminationMessagePolicy TerminationMessagePolicy `fingerprint:"omitzero"`
	// OCIHook, if set, may change the container's OCI runtime spec (runtime-spec's
	// specs.Spec) before the container is created: an escape hatch for what ContainerSpec does
	// not express (a device, an annotation, a seccomp or memory tweak). It runs after podlife
	// has applied every setting of the container (image config, process, namespaces, mounts,
	// resources, security context, shim group); only the runtime class's OCI version is set
	// after it. An error fails the container's creation as an image or mount error would. It
	// may change anything; what it changes is not checked, and changing the namespaces, mounts
	// or cgroup podlife set can break the pod.
	//
	// Like Go hooks and probes, it is not persisted: a process that adopts the pod (Runtime.Adopt)
	// gives it again with the spec, for the containers it restarts. The spec fingerprint notes
	// only whether one is set: another function is not a spec change.
	OCIHook func(ctx context.Context, spec *specs.Spec) error `json:"-"`
}

// TerminationMessagePolicy says where a container's termination message comes from.
type TerminationMessagePolicy string

// Termination message policies, as Kubernetes'.
const (
	// TerminationMessageReadFile: the message is the content of the container's
	// TerminationMessagePath (the default).
	TerminationMessageReadFile TerminationMessagePolicy = "File"
	// TerminationMessageFallbackToLogsOnError: as File, but a container that exited with a
	// non-zero code and left the file empty gets the tail of its log as its message.
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// DefaultTerminationMessagePath is where the termination message file is mounted when
// ContainerSpec.TerminationMessagePath is empty (Kubernetes' default).
const DefaultTerminationMessagePath = "/dev/termination-log"

// Resources are a container's CPU, memory and ephemeral storage limits and requests, in
// Kubernetes' units: CPU in millicores, memory and storage in bytes. Zero means unset.
type Resources struct {
	// CPULimit caps CPU time (a CFS quota): 500 is half a CPU.
	CPULimit int64
	// CPURequest weights CPU time against other containers (cpu shares, as the kubelet maps it).
	CPURequest int64
	// MemoryLimit is the memory (and swap) the container may use; above it, it is OOM-killed.
	MemoryLimit int64
	// EphemeralStorageLimit is the local storage, in bytes, the container may use
	// (resources.limits.ephemeral-storage): its writable layer plus its logs. Above it, or when
	// the pod's total (its volumes on disk and every container) exceeds the sum of its
	// containers' limits, the pod is evicted (see Config.Eviction). At pod level it replaces
	// that sum (podlife's extension: Kubernetes' pod-level resources have no ephemeral storage).
	EphemeralStorageLimit int64 `fingerprint:"omitzero"`
	// MemoryRequest is the memory, in bytes, the container is said to need
	// (resources.requests.memory): it sets no cgroup value (as the kubelet on cgroup v1, or
	// without MemoryQoS) but decides the pod's QoS class with the limits, which a resize
	// (Pod.Resize) must keep. Zero with MemoryLimit set means the limit, as the API server
	// defaults it. Not in the spec's fingerprint: it changes nothing a container runs with.
	MemoryRequest int64 `fingerprint:"-"`
}

// Dependency is a condition on another container of the same pod.
type Dependency struct {
	// Container is the name of a container (or init container) of the pod.
	Container string
	// Condition is ContainerStarted (default), ContainerReady or ContainerCompleted.
	Condition DependencyCondition
}

// DependencyCondition is what a Dependency waits for.
type DependencyCondition string

// Dependency conditions.
const (
	// ContainerStarted: the container's process started and its postStart hook and startup
	// probe (if any) succeeded.
	ContainerStarted DependencyCondition = "Started"
	// ContainerReady: the container is ready (its readiness probe, if any, succeeds).
	ContainerReady DependencyCondition = "Ready"
	// ContainerCompleted: the container exited with code 0.
	ContainerCompleted DependencyCondition = "Completed"
)

// EnvVar is an environment variable of a container: Value, or with From set, a value of the
// running pod that podlife resolves when it creates the container (Value must then be empty).
type EnvVar struct {
	Name, Value string
	// From, if set, gives the variable a field of the running pod (its IP, the host's IP, its
	// UID: Kubernetes' env fieldRef of status.podIP and the like) instead of Value.
	From PodField `json:",omitempty" fingerprint:"omitzero"`
}

// String formats the variable as fmt's %v does a struct, "{NAME value}", or with From set
// "{NAME from status.podIP}".
func (e EnvVar) String() string {
	if e.From != "" {
		return "{" + e.Name + " from " + string(e.From) + "}"
	}
	return "{" + e.Name + " " + e.Value + "}"
}

// ContainerPort is a port of a container. With HostPort set, the port is published on the host.
type ContainerPort struct {
	// Name optionally names the port (an IANA_SVC_NAME).
	Name string
	// ContainerPort is the port inside the pod's network namespace.
	ContainerPort uint16
	// HostPort publishes ContainerPort on the host; zero publishes nothing.
	HostPort uint16
	// HostIP restricts the published port to one host address.
	HostIP string
	// Protocol is TCP (default), UDP or SCTP.
	Protocol Protocol
}

// Protocol is a network protocol of a port.
type Protocol string

// Protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	// Name is the volume's name in PodSpec.Volumes.
	Name string
	// MountPath is the absolute path inside the container.
	MountPath string
	// SubPath mounts a path inside the volume instead of its root, as the kubelet does: a missing
	// SubPath is created as a directory (0755) inside the volume; symlinks on the way are
	// followed (as the host resolves them) only while they stay in the volume. A SubPath leading
	// out of the volume (a container may have replaced it with `ln -s / sub`) fails the
	// container's create, with the volumeMount named; it is resolved at every create, so a
	// restart sees what the containers made of the volume.
	SubPath string
	// ReadOnly mounts the volume read-only.
	ReadOnly bool
}

// Volume is a pod volume. Exactly one source must be set.
type Volume struct {
	// Name is a DNS-1123 label, unique within the pod.
	Name string
	// EmptyDir is a directory created for the pod and removed with it.
	EmptyDir *EmptyDirVolume
	// HostPath is a file or directory of the host.
	HostPath *HostPathVolume
	// Files is a directory of files podlife writes when the pod starts (what configMap and
	// secret volumes become); it is mounted read-only.
	Files *FilesVolume
	// Image is the filesystem of an OCI image, mounted read-only (Kubernetes' image volumes).
	Image *ImageVolume
}

// ImageVolume mounts an image's filesystem read-only: a view of its unpacked snapshot, no
// copy. The image is pulled (or found) when the pod starts, with PullPolicy as a container's
// image; a failure fails the start, naming the volume. The view is held by the pod's lease and
// goes with the pod.
type ImageVolume struct {
	// Reference names the image, as ContainerSpec.Image does.
	Reference string
	// PullPolicy is Always, IfNotPresent or Never; empty means the Kubernetes default: Always
	// for ":latest" or an untagged reference, else IfNotPresent.
	PullPolicy PullPolicy
}

// FilesVolume is a read-only directory of given files.
type FilesVolume struct {
	// Files are written relative to the volume's root.
	Files []File
	// Medium "Memory" keeps them on a tmpfs (as the kubelet does for secrets).
	Medium StorageMedium
}

// File is one file of a FilesVolume.
type File struct {
	// Path is relative, without "..": "config.yaml", "certs/tls.crt".
	Path string
	Data []byte
	// Mode defaults to 0644.
	Mode os.FileMode
}

// EmptyDirVolume is an empty directory that lives as long as the pod.
type EmptyDirVolume struct {
	// Medium "" uses the state directory's disk; "Memory" mounts a tmpfs.
	Medium StorageMedium
	// SizeLimit bounds the volume, in bytes: a Memory medium's tmpfs size (zero means half the
	// host's memory, tmpfs's default); on disk, the usage above which the pod is evicted, as
	// the kubelet does (measured every Config.Eviction.Period; zero means no limit).
	SizeLimit int64
}

// StorageMedium is where an emptyDir lives.
type StorageMedium string

// Storage media.
const (
	MediumDefault StorageMedium = ""
	MediumMemory  StorageMedium = "Memory"
)

// HostPathVolume is a path on the host.
type HostPathVolume struct {
	// Path is an absolute host path.
	Path string
	// Type checks the path before the pod starts: "" (no check), DirectoryOrCreate, Directory,
	// FileOrCreate, File. It is checked again at each container's create, on the very object
	// then mounted (the path may be a symlink; it is resolved once, on the host).
	Type HostPathType
}

// HostPathType is the kind of check made on a hostPath volume.
type HostPathType string

// Host path types (a subset of Kubernetes').
const (
	HostPathUnset             HostPathType = ""
	HostPathDirectoryOrCreate HostPathType = "DirectoryOrCreate"
	HostPathDirectory         HostPathType = "Directory"
	HostPathFileOrCreate      HostPathType = "FileOrCreate"
	HostPathFile              HostPathType = "File"
)

// DNSConfig is the pod's /etc/resolv.conf.
type DNSConfig struct {
	Nameservers []string
	Searches    []string
	Options     []string
}

// HostAlias adds an /etc/hosts line.
type HostAlias struct {
	IP        string
	Hostnames []string
}

// RegistryCredential authenticates pulls from one registry host.
type RegistryCredential struct {
	// Registry is the host[:port] the credential is for ("docker.io", "127.0.0.1:5000").
	Registry string
	Username string
	Password string
}

// PullPolicy says when to pull a container's image.
type PullPolicy string

// Pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullIfNotPresent PullPolicy = "IfNotPresent"
	PullNever        PullPolicy = "Never"
)

// RestartPolicy says whether exited containers are restarted.
type RestartPolicy string

// Restart policies.
const (
	RestartAlways    RestartPolicy = "Always"
	RestartOnFailure RestartPolicy = "OnFailure"
	RestartNever     RestartPolicy = "Never"
)

// allContainers lists init containers then regular containers.
func (s *PodSpec) allContainers() []*ContainerSpec {
	out := make([]*ContainerSpec, 0, len(s.InitContainers)+len(s.Containers))
	for i := range s.InitContainers {
		out = append(out, &s.InitContainers[i])
	}
	for i := range s.Containers {
		out = append(out, &s.Containers[i])
	}
	return out
}
