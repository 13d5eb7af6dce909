package fields

// This file is the table of every field of the Kubernetes objects the loader reads, saying
// what it does with each. The walker (walk.go) checks every field set in a document against
// it, so that no set field is silently dropped: a field the table does not know (one added to
// k8s.io/api after this table was written) is rejected. docs/kube-fields.md is generated from
// the table (see TestFieldsDoc in podlife/kube).

// Support says what the loader does with a field.
type Support int

const (
	// Supported: converted to podlife's spec. The converter may still reject some values;
	// the rule's note says which.
	Supported Support = iota + 1
	// Ignored: accepted silently. The field is informational, set by the API server, or
	// only steers a controller that has nothing to do when one pod is run once.
	Ignored
	// Warned: dropped with a warning, unless its value is one the rule accepts (what podlife
	// does anyway).
	Warned
	// Rejected: an error, unless its value is one the rule accepts.
	Rejected
)

// String returns the word the docs use.
func (s Support) String() string {
	switch s {
	case Supported:
		return "supported"
	case Ignored:
		return "ignored"
	case Warned:
		return "warning"
	case Rejected:
		return "error"
	}
	return "?"
}

// Rule says what happens to the field at path, and to everything under it unless a longer
// path has a Rule of its own. A path may use the placeholders <container> (containers[*] and
// initContainers[*]), <probe> (livenessProbe, readinessProbe, startupProbe) and <hook>
// (lifecycle.postStart, lifecycle.preStop).
type Rule struct {
	Path    string
	Support Support
	// Accept lists JSON values (strings, bools) that a warned or rejected field may have
	// without an issue, because podlife behaves that way anyway.
	Accept []any
	Note   string
}

func sup(path, note string) Rule { return Rule{Path: path, Support: Supported, Note: note} }
func ign(path, note string) Rule { return Rule{Path: path, Support: Ignored, Note: note} }
func warn(path, note string, accept ...any) Rule {
	return Rule{Path: path, Support: Warned, Note: note, Accept: accept}
}
func rej(path, note string, accept ...any) Rule {
	return Rule{Path: path, Support: Rejected, Note: note, Accept: accept}
}

// Notes shared by several rules.
const (
	noteServer     = "set by the API server"
	noteScheduling = "scheduling: there is one host"
	noteNoUser     = "file ownership is not supported"
	noteStatic     = "fieldPath metadata.name, metadata.namespace, metadata.labels, metadata.annotations (also ['key']), metadata.uid of an API object (a manifest's pod has none yet: rejected); others rejected"
	noteRollout    = "controller setting: one pod is run once"
	noteSELinux    = "on a host without SELinux, accepted and nothing is applied (as the kubelet and the CRI); on a host that runs SELinux (/sys/fs/selinux mounted), an error: podlife does not label processes or volumes"
	noteResource   = "limits/requests of cpu, memory, ephemeral-storage, divided by divisor and rounded up; a missing request is the limit, a missing limit the host's allocatable (CPUs, MemTotal, root filesystem size); hugepages rejected"
)

// objectMetaRules are the metadata rules of a Pod or workload, relative to its root.
func objectMetaRules(named string) []Rule {
	return []Rule{
		sup("apiVersion", "checked against the kind"),
		sup("kind", "Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job; ConfigMap and Secret feed the pods"),
		sup("metadata.name", named),
		sup("metadata.generateName", "ignored when metadata.name is set; otherwise an error: podlife needs a fixed name"),
		sup("metadata.namespace", "→ Namespace; default Options.Namespace (\"default\"); ConfigMaps and Secrets are looked up in it"),
		ign("metadata.annotations", "informational"),
		ign("metadata.uid", noteServer),
		ign("metadata.resourceVersion", noteServer),
		ign("metadata.generation", noteServer),
		ign("metadata.creationTimestamp", noteServer),
		ign("metadata.deletionTimestamp", noteServer),
		ign("metadata.deletionGracePeriodSeconds", noteServer),
		ign("metadata.selfLink", noteServer),
		ign("metadata.ownerReferences", noteServer),
		ign("metadata.finalizers", noteServer),
		ign("metadata.managedFields", noteServer),
		ign("status", noteServer),
	}
}

// PodRules are the rules of a Pod document; a pod template uses them from spec.template.
func PodRules() []Rule {
	rules := objectMetaRules("→ Name: a DNS-1123 label (at most 63 characters), or up to 253 (a DNS-1123 subdomain, the API server's rule) with Options.PodName mapping it to one; the hostname and downward API metadata.name stay the Kubernetes name (the hostname cut to 63 characters, as the kubelet); in a pod template: ignored, the pod takes the workload's name")
	rules = append(rules,
		sup("metadata.labels", "→ Labels (a workload's own labels are ignored: the pod has its template's)"),

		sup("spec.restartPolicy", "→ RestartPolicy; default Always (Jobs: OnFailure or Never required)"),
		sup("spec.terminationGracePeriodSeconds", "→ TerminationGracePeriod; default 30 s"),
		sup("spec.activeDeadlineSeconds", "→ ActiveDeadline (a Job's activeDeadlineSeconds bounds it too)"),
		sup("spec.hostNetwork", "→ HostNetwork"),
		sup("spec.hostname", "→ Hostname"),
		sup("spec.hostnameOverride", "→ Hostname (takes precedence over hostname)"),
		warn("spec.subdomain", "there is no cluster DNS"),
		warn("spec.setHostnameAsFQDN", "there is no cluster DNS", false),
		sup("spec.hostAliases[*].ip", "→ HostAliases"),
		sup("spec.hostAliases[*].hostnames", "→ HostAliases"),
		sup("spec.dnsPolicy", "ClusterFirst, ClusterFirstWithHostNet and Default use the host's resolv.conf (as a kubelet without cluster DNS); None uses dnsConfig"),
		sup("spec.dnsConfig.nameservers", "→ DNS (dnsPolicy None; otherwise dnsConfig is dropped with a warning)"),
		sup("spec.dnsConfig.searches", "→ DNS"),
		sup("spec.dnsConfig.options[*].name", "→ DNS, as name or name:value"),
		sup("spec.dnsConfig.options[*].value", "→ DNS"),
		sup("spec.imagePullSecrets[*].name", "→ PullCredentials from a kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg Secret given with the pod; a missing Secret is a warning, as the kubelet pulls without it"),
		sup("spec.os.name", "linux; windows rejected"),
		ign("spec.enableServiceLinks", "podlife alone has no Services: nothing to inject (a node gives them as Options.ServiceEnv, computed by ServiceEnv with this field)"),
		warn("spec.serviceAccount", "deprecated alias of serviceAccountName: there is no API server and no service account token", "default"),
		warn("spec.serviceAccountName", "there is no API server and no service account token", "default"),
		warn("spec.automountServiceAccountToken", "no service account token is mounted", false),
		sup("spec.hostPID", "→ HostPID: refused unless Config.AllowHostNamespaces"),
		sup("spec.hostIPC", "→ HostIPC (the host's /dev/shm too): refused unless Config.AllowHostNamespaces"),
		sup("spec.shareProcessNamespace", "→ ShareProcessNamespace: a catatonit pause is PID 1 of the pod's PID namespace (Config.PauseBinary)"),
		rej("spec.hostUsers", "user namespaces are not supported", true),
		sup("spec.runtimeClassName", "→ RuntimeClassName: a class of Config.RuntimeClasses, or the built-in crun; an unknown class is refused when the pod starts"),
		sup("spec.readinessGates[*].conditionType", "→ ReadinessGates: Ready also waits for the condition, set with Pod.SetCondition or `podlife condition`"),
		rej("spec.resourceClaims", "dynamic resource allocation is not supported"),
		sup("spec.resources.limits", "pod-level resources → Resources: a pod cgroup with these cpu and memory limits, the containers' cgroups under it (and the downward API's limit of a container without one); ephemeral-storage: a warning (each container's limit bounds the pod's total); others rejected"),
		sup("spec.resources.requests", "cpu → Resources.CPURequest, the pod cgroup's cpu shares (defaults to the limit); memory and ephemeral-storage only steer scheduling; others rejected"),
		rej("spec.resources.claims", "dynamic resource allocation is not supported"),
		rej("spec.ephemeralContainers", "the API server refuses it too (cannot be set on create): add one to a running pod with Pod.AddEphemeralContainer or `podlife debug`"),
		warn("spec.nodeName", noteScheduling),
		warn("spec.nodeSelector", noteScheduling),
		warn("spec.affinity", noteScheduling),
		warn("spec.tolerations", noteScheduling),
		warn("spec.topologySpreadConstraints", noteScheduling),
		warn("spec.schedulerName", noteScheduling, "default-scheduler"),
		warn("spec.schedulingGates", noteScheduling),
		warn("spec.schedulingGroup", noteScheduling),
		warn("spec.priority", noteScheduling, 0.0),
		warn("spec.priorityClassName", noteScheduling),
		warn("spec.preemptionPolicy", noteScheduling, "PreemptLowerPriority"),
		warn("spec.overhead", "pod overhead is a scheduling and accounting setting"),
		warn("spec.evictionResponders", "there is no eviction API"),

		sup("spec.securityContext.runAsUser", "→ SecurityContext.RunAsUser (a container's wins)"),
		sup("spec.securityContext.runAsGroup", "→ SecurityContext.RunAsGroup (a container's wins)"),
		sup("spec.securityContext.runAsNonRoot", "→ SecurityContext.RunAsNonRoot: checked against runAsUser or the image's user (which must be numeric), as the kubelet"),
		sup("spec.securityContext.supplementalGroups", "→ SecurityContext.SupplementalGroups, after the image's groups of the user"),
		rej("spec.securityContext.supplementalGroupsPolicy", "the image's groups are always merged", "Merge"),
		sup("spec.securityContext.fsGroup", "→ SecurityContext.FSGroup: emptyDir, configMap, secret and downwardAPI volumes get its group (directories the setgid bit); added to the supplementary groups"),
		ign("spec.securityContext.fsGroupChangePolicy", "the volumes are new: their ownership is always set"),
		sup("spec.securityContext.sysctls", "→ SecurityContext.Sysctls: the kubelet's safe set; others if Config.AllowedUnsafeSysctls allows them; net.* refused with hostNetwork"),
		sup("spec.securityContext.seccompProfile.type", "→ SecurityContext.SeccompProfile: RuntimeDefault (the default), Unconfined (refused unless Config.AllowPrivileged or Config.PodSecurity privileged), Localhost"),
		sup("spec.securityContext.seccompProfile.localhostProfile", "→ a profile under Config.SeccompProfileRoot (relative, without '..')"),
		rej("spec.securityContext.appArmorProfile", "podlife does not apply AppArmor profiles"),
		sup("spec.securityContext.seLinuxOptions", noteSELinux),
		ign("spec.securityContext.seLinuxChangePolicy", "only matters with SELinux labels, which podlife does not apply"),
		ign("spec.securityContext.windowsOptions", "Windows only"),

		sup("spec.volumes[*].name", "→ Volumes; a volume without a source is an emptyDir, as the API defaults it"),
		sup("spec.volumes[*].emptyDir.medium", "\"\" or Memory; HugePages rejected"),
		sup("spec.volumes[*].emptyDir.sizeLimit", "→ EmptyDir.SizeLimit (bounds a Memory emptyDir's tmpfs; on disk, the pod is evicted above it, as by the kubelet: Config.Eviction)"),
		rej("spec.volumes[*].emptyDir.mode", "emptyDir permissions are not supported"),
		sup("spec.volumes[*].hostPath.path", "→ HostPath"),
		sup("spec.volumes[*].hostPath.type", "\"\", DirectoryOrCreate, Directory, FileOrCreate, File; Socket, CharDevice, BlockDevice rejected"),
		sup("spec.volumes[*].configMap.name", "→ Files, from a ConfigMap given with the pod (missing: an error unless optional)"),
		sup("spec.volumes[*].configMap.items[*].key", "→ Files"),
		sup("spec.volumes[*].configMap.items[*].path", "→ Files"),
		sup("spec.volumes[*].configMap.items[*].mode", "→ File.Mode"),
		rej("spec.volumes[*].configMap.items[*].user", noteNoUser),
		sup("spec.volumes[*].configMap.defaultMode", "→ File.Mode; default 0644"),
		rej("spec.volumes[*].configMap.defaultUser", noteNoUser),
		sup("spec.volumes[*].configMap.optional", "a missing ConfigMap or key gives an empty volume or no file"),
		sup("spec.volumes[*].secret.secretName", "→ Files on a tmpfs (Medium Memory), from a Secret given with the pod"),
		sup("spec.volumes[*].secret.items[*].key", "→ Files"),
		sup("spec.volumes[*].secret.items[*].path", "→ Files"),
		sup("spec.volumes[*].secret.items[*].mode", "→ File.Mode"),
		rej("spec.volumes[*].secret.items[*].user", noteNoUser),
		sup("spec.volumes[*].secret.defaultMode", "→ File.Mode; default 0644"),
		rej("spec.volumes[*].secret.defaultUser", noteNoUser),
		sup("spec.volumes[*].secret.optional", "a missing Secret or key gives an empty volume or no file"),
		sup("spec.volumes[*].downwardAPI.items[*].path", "→ Files on a tmpfs"),
		sup("spec.volumes[*].downwardAPI.items[*].fieldRef", noteStatic),
		sup("spec.volumes[*].downwardAPI.items[*].resourceFieldRef", noteResource),
		sup("spec.volumes[*].downwardAPI.items[*].mode", "→ File.Mode"),
		rej("spec.volumes[*].downwardAPI.items[*].user", noteNoUser),
		sup("spec.volumes[*].downwardAPI.defaultMode", "→ File.Mode; default 0644"),
		rej("spec.volumes[*].downwardAPI.defaultUser", noteNoUser),
		sup("spec.volumes[*].projected.defaultMode", "→ File.Mode; default 0644"),
		rej("spec.volumes[*].projected.defaultUser", noteNoUser),
		sup("spec.volumes[*].projected.sources[*].configMap.name", "→ Files on a tmpfs, as a configMap volume"),
		sup("spec.volumes[*].projected.sources[*].configMap.items[*].key", "→ Files"),
		sup("spec.volumes[*].projected.sources[*].configMap.items[*].path", "→ Files"),
		sup("spec.volumes[*].projected.sources[*].configMap.items[*].mode", "→ File.Mode"),
		rej("spec.volumes[*].projected.sources[*].configMap.items[*].user", noteNoUser),
		sup("spec.volumes[*].projected.sources[*].configMap.optional", "as for a configMap volume"),
		sup("spec.volumes[*].projected.sources[*].secret.name", "→ Files, as a secret volume"),
		sup("spec.volumes[*].projected.sources[*].secret.items[*].key", "→ Files"),
		sup("spec.volumes[*].projected.sources[*].secret.items[*].path", "→ Files"),
		sup("spec.volumes[*].projected.sources[*].secret.items[*].mode", "→ File.Mode"),
		rej("spec.volumes[*].projected.sources[*].secret.items[*].user", noteNoUser),
		sup("spec.volumes[*].projected.sources[*].secret.optional", "as for a secret volume"),
		sup("spec.volumes[*].projected.sources[*].downwardAPI.items[*].path", "→ Files, as a downwardAPI volume"),
		sup("spec.volumes[*].projected.sources[*].downwardAPI.items[*].fieldRef", noteStatic),
		sup("spec.volumes[*].projected.sources[*].downwardAPI.items[*].resourceFieldRef", noteResource),
		sup("spec.volumes[*].projected.sources[*].downwardAPI.items[*].mode", "→ File.Mode"),
		rej("spec.volumes[*].projected.sources[*].downwardAPI.items[*].user", noteNoUser),
		rej("spec.volumes[*].projected.sources[*].serviceAccountToken", "there is no API server to issue tokens"),
		rej("spec.volumes[*].projected.sources[*].clusterTrustBundle", "there is no API server"),
		rej("spec.volumes[*].projected.sources[*].podCertificate", "there is no API server"),
	)
	rules = append(rules,
		sup("spec.volumes[*].image.reference", "→ Image.Reference: the image's filesystem, a read-only view of its containerd snapshot (no copy)"),
		sup("spec.volumes[*].image.pullPolicy", "→ Image.PullPolicy; default Always for :latest or no tag, else IfNotPresent"),
	)
	for _, v := range []string{"persistentVolumeClaim", "ephemeral", "csi", "nfs", "iscsi", "fc", "rbd",
		"cephfs", "glusterfs", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "azureDisk", "azureFile",
		"cinder", "flexVolume", "flocker", "vsphereVolume", "quobyte", "photonPersistentDisk", "portworxVolume",
		"scaleIO", "storageos"} {
		rules = append(rules, rej("spec.volumes[*]."+v, "volume type not supported (emptyDir, hostPath, configMap, secret, downwardAPI, projected and image are)"))
	}
	return append(rules, containerRules()...)
}

// containerRules are the rules of containers and init containers.
func containerRules() []Rule {
	return []Rule{
		sup("<container>.name", "→ Name"),
		sup("<container>.image", "→ Image"),
		sup("<container>.imagePullPolicy", "→ ImagePullPolicy; default Always for :latest or no tag, else IfNotPresent"),
		sup("<container>.command", "→ Command, $(VAR) expanded with the container's environment as the kubelet does"),
		sup("<container>.args", "→ Args, $(VAR) expanded"),
		sup("<container>.workingDir", "→ WorkingDir"),
		sup("<container>.ports[*].name", "→ Ports; names resolve named probe and hook ports"),
		sup("<container>.ports[*].containerPort", "→ Ports"),
		sup("<container>.ports[*].hostPort", "→ Ports (published with CNI portmap)"),
		sup("<container>.ports[*].hostIP", "→ Ports"),
		sup("<container>.ports[*].protocol", "→ Ports; default TCP"),
		sup("<container>.env[*].name", "→ Env"),
		sup("<container>.env[*].value", "→ Env, $(VAR) expanded with the variables defined before it"),
		sup("<container>.env[*].valueFrom.fieldRef", "every fieldPath the kubelet resolves: metadata.name, metadata.namespace, metadata.labels['key'], metadata.annotations['key'], spec.serviceAccountName, spec.nodeName (the pod's, else Options.NodeName, else the host's name), metadata.uid (an API object's, else EnvVar.From 'metadata.uid'); status.podIP(s) and status.hostIP(s) → EnvVar.From, resolved when the container is created (Config.HostIPs); such a variable cannot be $(VAR)-expanded into another value, command, args or subPathExpr (an error)"),
		sup("<container>.env[*].valueFrom.configMapKeyRef", "from a ConfigMap given with the pod; optional allows it or the key to be missing"),
		sup("<container>.env[*].valueFrom.secretKeyRef", "from a Secret given with the pod; optional allows it or the key to be missing"),
		sup("<container>.env[*].valueFrom.resourceFieldRef", noteResource+"; containerName defaults to the container"),
		rej("<container>.env[*].valueFrom.fileKeyRef", "env files are not supported"),
		sup("<container>.envFrom[*].configMapRef", "every key of the ConfigMap, after prefix; keys that are not valid variable names are skipped with a warning"),
		sup("<container>.envFrom[*].secretRef", "every key of the Secret, after prefix"),
		sup("<container>.envFrom[*].prefix", "prepended to the keys"),
		sup("<container>.resources.limits", "cpu → CPULimit (millicores), memory → MemoryLimit (bytes), ephemeral-storage → EphemeralStorageLimit (bytes: writable layer plus logs; above it, or the pod's total above the containers' sum, the pod is evicted: Config.Eviction); hugepages and extended resources rejected"),
		sup("<container>.resources.requests", "cpu → CPURequest (defaults to the limit, as the API does); memory → MemoryRequest (no cgroup value: with the limits it decides the QoS class a resize keeps); ephemeral-storage only steers scheduling; others rejected"),
		rej("<container>.resources.claims", "dynamic resource allocation is not supported"),
		sup("<container>.resizePolicy", "→ ResizePolicy: RestartContainer for cpu or memory restarts the container when Pod.Resize changes that resource; NotRequired (the default) resizes it in place"),
		sup("<container>.restartPolicy", "→ ContainerSpec.RestartPolicy: init containers: Always makes a native sidecar, OnFailure or Never replace the pod's policy; app containers: Always, OnFailure or Never replace the pod's policy (ContainerRestartRules)"),
		sup("<container>.restartPolicyRules", "→ ContainerSpec.RestartPolicyRules: action Restart (the container) or RestartAllContainers (the whole pod in place) on exit codes In/NotIn, as the kubelet with ContainerRestartRules and RestartAllContainersOnContainerExits"),
		sup("<container>.volumeMounts[*].name", "→ VolumeMounts"),
		sup("<container>.volumeMounts[*].mountPath", "→ VolumeMounts"),
		sup("<container>.volumeMounts[*].subPath", "→ VolumeMounts; created if missing, and refused at the create if it leads out of the volume (a symlink), as in the kubelet"),
		sup("<container>.volumeMounts[*].subPathExpr", "→ SubPath, $(VAR) expanded with the container's environment (a missing variable is an error, as in the kubelet)"),
		sup("<container>.volumeMounts[*].readOnly", "→ VolumeMounts"),
		rej("<container>.volumeMounts[*].mountPropagation", "mounts are private", "None"),
		rej("<container>.volumeMounts[*].recursiveReadOnly", "read-only mounts are not made recursively read-only", "Disabled", "IfPossible"),
		rej("<container>.volumeMounts[*].bindMountOptions", "bind mount options are not supported"),
		rej("<container>.volumeDevices", "block volumes are not supported"),
		sup("<container>.<probe>.exec.command", "→ probe.Exec; $(VAR) expanded from literal env values only, as the kubelet does"),
		sup("<container>.<probe>.httpGet.port", "→ probe.HTTPGet; a named port is resolved against the container's ports"),
		sup("<container>.<probe>.httpGet.path", "→ probe.HTTPGet; default /"),
		sup("<container>.<probe>.httpGet.host", "→ probe.WithHost"),
		sup("<container>.<probe>.httpGet.scheme", "→ probe.WithScheme; default HTTP"),
		sup("<container>.<probe>.httpGet.httpHeaders[*].name", "→ probe.WithHeader"),
		sup("<container>.<probe>.httpGet.httpHeaders[*].value", "→ probe.WithHeader"),
		rej("<container>.<probe>.httpGet.protocol", "only HTTP/1.1 probes are supported", "HTTP1"),
		sup("<container>.<probe>.tcpSocket.port", "→ probe.TCPSocket; a named port is resolved"),
		sup("<container>.<probe>.tcpSocket.host", "→ probe.WithHost"),
		sup("<container>.<probe>.grpc.port", "→ probe.GRPC"),
		sup("<container>.<probe>.grpc.service", "→ probe.GRPC"),
		rej("<container>.<probe>.grpc.mode", "gRPC probes are plaintext", "Plaintext"),
		sup("<container>.<probe>.initialDelaySeconds", "→ InitialDelay"),
		sup("<container>.<probe>.periodSeconds", "→ Period; default 10 s"),
		sup("<container>.<probe>.timeoutSeconds", "→ Timeout; default 1 s"),
		sup("<container>.<probe>.successThreshold", "→ SuccessThreshold; default 1"),
		sup("<container>.<probe>.failureThreshold", "→ FailureThreshold; default 3"),
		sup("<container>.<probe>.terminationGracePeriodSeconds", "→ TerminationGracePeriod"),
		sup("<container>.<hook>.exec.command", "→ hook.Exec"),
		sup("<container>.<hook>.httpGet.port", "→ hook.HTTPGet; a named port is resolved against the container's ports"),
		sup("<container>.<hook>.httpGet.path", "→ hook.HTTPGet; default /"),
		sup("<container>.<hook>.httpGet.host", "→ hook.WithHost"),
		sup("<container>.<hook>.httpGet.scheme", "→ hook.WithScheme; default HTTP"),
		sup("<container>.<hook>.httpGet.httpHeaders[*].name", "→ hook.WithHeader"),
		sup("<container>.<hook>.httpGet.httpHeaders[*].value", "→ hook.WithHeader"),
		rej("<container>.<hook>.httpGet.protocol", "only HTTP/1.1 hooks are supported", "HTTP1"),
		rej("<container>.<hook>.tcpSocket", "the kubelet fails tcpSocket hooks at run time"),
		sup("<container>.<hook>.sleep.seconds", "→ hook.Sleep"),
		sup("<container>.lifecycle.stopSignal", "→ StopSignal; needs spec.os.name, as the API requires"),
		sup("<container>.terminationMessagePath", "→ TerminationMessagePath; default /dev/termination-log: each run of the container gets a new empty file there, writable by any user, whose last 4096 bytes become state.terminated.message (a pod's messages share 12 KiB)"),
		sup("<container>.terminationMessagePolicy", "→ TerminationMessagePolicy; default File; FallbackToLogsOnError: a container that failed and left the file empty gets its log's last 80 lines (2048 bytes at most)"),
		warn("<container>.stdin", "stdin is not attached", false),
		warn("<container>.stdinOnce", "stdin is not attached", false),
		warn("<container>.tty", "no TTY is allocated", false),
		sup("<container>.securityContext.runAsUser", "→ SecurityContext.RunAsUser"),
		sup("<container>.securityContext.runAsGroup", "→ SecurityContext.RunAsGroup"),
		sup("<container>.securityContext.runAsNonRoot", "→ SecurityContext.RunAsNonRoot"),
		sup("<container>.securityContext.readOnlyRootFilesystem", "→ SecurityContext.ReadOnlyRootFilesystem"),
		sup("<container>.securityContext.privileged", "→ SecurityContext.Privileged: refused unless Config.AllowPrivileged"),
		sup("<container>.securityContext.allowPrivilegeEscalation", "→ SecurityContext.AllowPrivilegeEscalation: no_new_privs when false; unset means false unless privileged or adding CAP_SYS_ADMIN"),
		sup("<container>.securityContext.capabilities.add", "→ SecurityContext.Capabilities (with or without CAP_; ALL); one outside the Pod Security baseline set is refused unless Config.AllowedCapabilities or Config.AllowPrivileged"),
		sup("<container>.securityContext.capabilities.drop", "→ SecurityContext.Capabilities (with or without CAP_; ALL)"),
		sup("<container>.securityContext.procMount", "Default; Unmasked rejected (it needs user namespaces)"),
		sup("<container>.securityContext.seccompProfile.type", "→ SecurityContext.SeccompProfile, as the pod's"),
		sup("<container>.securityContext.seccompProfile.localhostProfile", "→ a profile under Config.SeccompProfileRoot"),
		rej("<container>.securityContext.appArmorProfile", "podlife does not apply AppArmor profiles"),
		sup("<container>.securityContext.seLinuxOptions", noteSELinux),
		ign("<container>.securityContext.windowsOptions", "Windows only"),
	}
}

// The workload kinds whose pod template is run as one pod.
const (
	Deployment  = "Deployment"
	StatefulSet = "StatefulSet"
	DaemonSet   = "DaemonSet"
	ReplicaSet  = "ReplicaSet"
	Job         = "Job"
)

// WorkloadKinds returns the workload kinds, in the order the docs list them.
func WorkloadKinds() []string { return []string{Deployment, StatefulSet, DaemonSet, ReplicaSet, Job} }

// WorkloadRules are the rules of the workload kinds whose pod template is run as one pod;
// spec.template is converted with podRules.
func WorkloadRules(kind string) []Rule {
	rules := objectMetaRules("→ the pod's Name")
	rules = append(rules,
		ign("metadata.labels", "the pod has its template's labels"),
		sup("spec.template", "converted as a Pod: the rules above apply under spec.template"),
		ign("spec.selector", "matches the template's labels; nothing to select"),
	)
	switch kind {
	case Deployment:
		rules = append(rules,
			sup("spec.replicas", "one pod is run; another count is a warning"),
			ign("spec.strategy", noteRollout),
			ign("spec.minReadySeconds", noteRollout),
			ign("spec.revisionHistoryLimit", noteRollout),
			ign("spec.progressDeadlineSeconds", noteRollout),
			ign("spec.paused", noteRollout))
	case StatefulSet:
		rules = append(rules,
			sup("spec.replicas", "one pod is run; another count is a warning"),
			rej("spec.volumeClaimTemplates", "persistent volume claims are not supported"),
			ign("spec.serviceName", "there is no cluster DNS"),
			ign("spec.podManagementPolicy", noteRollout),
			ign("spec.updateStrategy", noteRollout),
			ign("spec.revisionHistoryLimit", noteRollout),
			ign("spec.minReadySeconds", noteRollout),
			ign("spec.persistentVolumeClaimRetentionPolicy", noteRollout),
			ign("spec.ordinals", noteRollout))
	case DaemonSet:
		rules = append(rules,
			ign("spec.updateStrategy", noteRollout),
			ign("spec.minReadySeconds", noteRollout),
			ign("spec.revisionHistoryLimit", noteRollout))
	case ReplicaSet:
		rules = append(rules,
			sup("spec.replicas", "one pod is run; another count is a warning"),
			ign("spec.minReadySeconds", noteRollout))
	case Job:
		rules = append(rules,
			sup("spec.parallelism", "one pod is run; more is a warning"),
			sup("spec.completions", "one pod is run; more is a warning"),
			sup("spec.activeDeadlineSeconds", "→ ActiveDeadline (the shorter of the Job's and the pod's)"),
			warn("spec.backoffLimit", "a failed pod is not replaced (container restarts follow the template's restartPolicy)"),
			warn("spec.backoffLimitPerIndex", "a failed pod is not replaced"),
			warn("spec.maxFailedIndexes", "a failed pod is not replaced"),
			warn("spec.podFailurePolicy", "a failed pod is not replaced"),
			warn("spec.successPolicy", "the pod's own result is the result"),
			warn("spec.completionMode", "one pod is run, without a completion index", "NonIndexed"),
			warn("spec.suspend", "the pod is run anyway", false),
			ign("spec.ttlSecondsAfterFinished", noteRollout),
			ign("spec.manualSelector", noteRollout),
			ign("spec.podReplacementPolicy", noteRollout),
			ign("spec.managedBy", noteRollout),
			warn("spec.scheduling.schedulingPolicy", noteScheduling),
			warn("spec.scheduling.schedulingConstraints", noteScheduling),
			rej("spec.scheduling.resourceClaims", "dynamic resource allocation is not supported"))
	}
	return rules
}
