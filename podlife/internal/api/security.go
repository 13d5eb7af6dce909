package api

// PodSecurityContext holds the security settings of every container of a pod, as Kubernetes'
// pod-level securityContext. A container's SecurityContext overrides the fields both have.
type PodSecurityContext struct {
	// RunAsUser is the UID containers run as; nil means the image's user (root if it names none).
	RunAsUser *int64
	// RunAsGroup is the primary GID; nil means the user's group in the image's /etc/passwd (or 0).
	RunAsGroup *int64
	// RunAsNonRoot refuses to start a container whose user would be root: the effective
	// RunAsUser is 0, or (RunAsUser unset) the image's user is root, empty or a name that
	// cannot be checked without running the image (the kubelet's rule).
	RunAsNonRoot *bool
	// SupplementalGroups are added to each container's first process's groups, after the
	// groups the image's /etc/group gives its user.
	SupplementalGroups []int64
	// FSGroup owns the pod's emptyDir and files volumes (group, with group read-write, or read
	// for files volumes, and the setgid bit on directories, so that files made in them get it)
	// and is added to every container's supplementary groups.
	FSGroup *int64
	// Sysctls are namespaced kernel parameters set for the pod (in each container's network
	// and IPC namespaces). The kubelet's safe set is allowed; others only if
	// Config.AllowedUnsafeSysctls allows them. net.* sysctls are refused with HostNetwork.
	Sysctls []Sysctl
	// SeccompProfile is the containers' default seccomp profile; nil means RuntimeDefault.
	SeccompProfile *SeccompProfile
}

// SecurityContext holds one container's security settings, as Kubernetes' container-level
// securityContext. Its fields win over the pod's.
type SecurityContext struct {
	// RunAsUser overrides PodSecurityContext.RunAsUser.
	RunAsUser *int64
	// RunAsGroup overrides PodSecurityContext.RunAsGroup.
	RunAsGroup *int64
	// RunAsNonRoot overrides PodSecurityContext.RunAsNonRoot.
	RunAsNonRoot *bool
	// Capabilities adds to or drops from the default capability set (containerd's, Docker's
	// 14). Names are given with or without the CAP_ prefix, in any case; "ALL" means every
	// capability. Drops apply after adds: {Add: ALL, Drop: NET_RAW} is all but NET_RAW.
	Capabilities *Capabilities
	// ReadOnlyRootFilesystem mounts the image's root filesystem read-only (volumes and
	// /etc/hosts, /etc/hostname, /etc/resolv.conf stay as they are).
	ReadOnlyRootFilesystem bool
	// AllowPrivilegeEscalation false sets no_new_privs: setuid binaries and file capabilities
	// give nothing. nil means false unless the container is privileged or adds CAP_SYS_ADMIN
	// (podlife's default is stricter than the kubelet's, which leaves no_new_privs unset).
	AllowPrivilegeEscalation *bool
	// Privileged gives every capability, every host device, no seccomp filter and writable
	// /sys and /proc. It is refused unless Config.AllowPrivileged is set.
	Privileged bool
	// ProcMount is Default (the masked and read-only /proc paths); Unmasked is not supported.
	ProcMount ProcMountType
	// SeccompProfile overrides PodSecurityContext.SeccompProfile.
	SeccompProfile *SeccompProfile
}

// Capabilities are Linux capabilities added to or dropped from the default set.
type Capabilities struct {
	Add, Drop []string
}

// Sysctl is a kernel parameter: a name such as "net.ipv4.ip_local_port_range" (or with "/"
// separators) and its value.
type Sysctl struct {
	Name, Value string
}

// SeccompProfile selects a container's seccomp filter.
type SeccompProfile struct {
	// Type is RuntimeDefault, Unconfined or Localhost.
	Type SeccompProfileType
	// LocalhostProfile, with Type Localhost, is the path of an OCI seccomp profile (JSON)
	// relative to Config.SeccompProfileRoot; it may not leave that directory.
	LocalhostProfile string
}

// SeccompProfileType is the kind of a seccomp profile.
type SeccompProfileType string

// Seccomp profile types.
const (
	// SeccompRuntimeDefault is containerd's default profile (Docker's): the default.
	SeccompRuntimeDefault SeccompProfileType = "RuntimeDefault"
	// SeccompUnconfined applies no filter.
	SeccompUnconfined SeccompProfileType = "Unconfined"
	// SeccompLocalhost loads a profile file under Config.SeccompProfileRoot.
	SeccompLocalhost SeccompProfileType = "Localhost"
)

// ProcMountType is how /proc is mounted in a container.
type ProcMountType string

// Proc mount types.
const (
	// ProcMountDefault masks and makes read-only the sensitive paths of /proc (the default).
	ProcMountDefault ProcMountType = "Default"
	// ProcMountUnmasked leaves /proc unmasked: not supported (it needs user namespaces).
	ProcMountUnmasked ProcMountType = "Unmasked"
)

// ReasonCreateContainerConfigError is the waiting reason of a container whose settings cannot
// be honoured with its image (runAsNonRoot with an image that runs as root), as the kubelet's.
const ReasonCreateContainerConfigError Reason = "CreateContainerConfigError"
