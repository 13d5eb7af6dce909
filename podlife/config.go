package podlife

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/eviction"
	"github.com/podlife/podlife/podlife/internal/runtimeclass"
	"github.com/podlife/podlife/podlife/podsecurity"
)

// Defaults of Config.
const (
	DefaultAddress   = "/run/containerd/containerd.sock"
	DefaultNamespace = "podlife"
	DefaultStateDir  = "/var/lib/podlife"
	defaultRuntime   = "io.containerd.runc.v2"
)

// ShimMode says how many containerd shims serve a pod.
type ShimMode string

// Shim modes.
const (
	// ShimPerPod runs all of a pod's containers under one runc shim (containerd's shim grouping,
	// as the CRI plugin does for a sandbox): less memory per pod.
	ShimPerPod ShimMode = "pod"
	// ShimPerContainer runs one shim per container.
	ShimPerContainer ShimMode = "container"
	// ShimShared (dense mode) runs up to Config.PodsPerShim pods under one runc shim: the least
	// memory per pod, for small devices. A pod gives up its own shim: a shim that dies (killed,
	// OOM) takes down the containers of every pod it serves (they restart per their restart
	// policy, in a new shim), and a pod's containers' exits and execs share that shim's
	// goroutines with the other pods'. Pods with ShareProcessNamespace keep a shim of their own.
	ShimShared ShimMode = "shared"
)

// Config configures a Runtime. The zero value is usable: it connects to the system containerd,
// or starts a private one when none answers, and wires pods to a default CNI bridge.
type Config struct {
	// Address is the containerd socket. Empty means DefaultAddress, and if nothing answers there
	// the private containerd of StateDir, started if none runs (see EmbeddedConfig).
	Address string `json:"address,omitempty"`
	// Embedded controls the private containerd used when Address is empty and the system socket
	// does not answer (or is not tried: Embedded.IgnoreSystem). Set Embedded.Disable to fail
	// instead.
	Embedded EmbeddedConfig `json:"embedded,omitzero"`
	// Namespace is the containerd namespace podlife keeps its objects in; default "podlife".
	Namespace string `json:"namespace,omitempty"`
	// StateDir holds pod state, logs, volumes, pinned namespaces and the CNI config; default
	// /var/lib/podlife. It is created 0700; one that exists with a looser mode is set to 0700
	// (with a warning in the log), and one owned by another user than this process's or root
	// is refused (New fails).
	StateDir string `json:"stateDir,omitempty"`
	// Snapshotter is the containerd snapshotter; empty means containerd's default (overlayfs).
	Snapshotter string `json:"snapshotter,omitempty"`
	// RuntimeName is the containerd runtime; default io.containerd.runc.v2.
	RuntimeName string `json:"runtime,omitempty"`
	// RuntimeClasses are the runtime classes pods may name in PodSpec.RuntimeClassName, by
	// name (Kubernetes' RuntimeClass, DNS-1123 subdomains). Besides them, "crun"
	// is built in when crun is in PATH: the runc shim running crun. A class
	// named "crun" here replaces the built-in one.
	RuntimeClasses map[string]RuntimeClass `json:"runtimeClasses,omitempty"`
	// Shims is ShimPerPod (default), ShimPerContainer or ShimShared.
	Shims ShimMode `json:"shims,omitempty"`
	// PodsPerShim is how many pods share a shim with ShimShared (default 10).
	PodsPerShim int `json:"podsPerShim,omitempty"`
	// Network attaches pods; nil means a CNI bridge (cni.BridgeConfig defaults) with its state
	// under StateDir/cni. A cni.Recorder (the bridge, cni.FromConfList) is kept in each pod's
	// record, and the pod's network is always released with it, whatever the releasing Runtime's.
	Network cni.Network `json:"-"`
	// Bridge configures the default bridge network when Network is nil. StateDir defaults to StateDir/cni.
	// Programs with their own state dirs need their own Bridge.Bridge and Subnet: a pod on a
	// bridge another state dir has pods on fails at step network (cni.BridgeInUseError).
	Bridge cni.BridgeConfig `json:"bridge,omitzero"`
	// Backoff is the crash-loop back-off of restarting containers; zero fields take the
	// kubelet's values (10 s, doubling, up to 300 s, reset after 10 min of running).
	Backoff Backoff `json:"backoff,omitzero"`
	// ImagePullBackOff, if set, makes a failed image pull wait and retry as on a kubelet: the
	// container waits in ErrImagePull, then ImagePullBackOff, and the pull is tried again after
	// the back-off (Initial, doubling up to Max; zero fields take the kubelet's 10 s and
	// 300 s) until the image is there (pulled, or imported meanwhile), and the pod starts then.
	// Run waits for it (its context ends the wait, not the pod). Nil fails Run at the first
	// failed pull (a StartError with StepPull) and removes the pod.
	ImagePullBackOff *Backoff `json:"imagePullBackOff,omitempty"`
	// Eviction bounds each pod's local storage and refuses new pods when the state
	// directory's filesystem is nearly full, as the kubelet's eviction manager does.
	Eviction Eviction `json:"eviction,omitzero"`
	// Logs bounds each container's log files (rotation by size, the kubelet's defaults:
	// 10 MiB, 5 files).
	Logs LogLimits `json:"logs,omitzero"`
	// ContainerLogger is the absolute path of the program that writes containers' output to
	// their log files: containerd's shim runs it beside each container (containerd's binary
	// log driver), and it hands the output to the state dir's shared logger (the program, run
	// once), so that the output keeps flowing, and the container keeps running, when the
	// process that manages the pod is gone. Use the podlife-logger command
	// (internal/cmd/podlife-logger), or a program of yours that calls containerlogger.Serve
	// when containerlogger.Invoked (package podlife/containerlogger). Empty: this process copies the output through FIFOs, and a
	// container that writes blocks once its pipe is full after this process is gone (see
	// docs/concepts.md, "Logs").
	ContainerLogger string `json:"containerLogger,omitempty"`
	// ExecGate is the absolute path of the exec gate program (internal/cmd/podlife-execgate,
	// statically linked), which makes a warm pool member's start a write to a FIFO rather than
	// a Task.Start per container: each container of a member is created and its task started
	// at once with the gate as its process, the gate holding the container's command until
	// Run takes the member and releases the containers in the start order (see
	// docs/warm-pool.md, "Exec gate"). Empty: members' processes wait in runc's create, and
	// Run starts each one's task.
	ExecGate string `json:"execGate,omitempty"`
	// Credentials, if set, is asked for registry credentials a pod's PullCredentials do not give.
	Credentials func(ctx context.Context, host string) (username, password string, err error) `json:"-"`
	// Logger receives podlife's logs; nil discards them.
	Logger *slog.Logger `json:"-"`
	// AllowPrivileged lets containers set SecurityContext.Privileged (the kubelet's
	// --allow-privileged). Without it such pods are refused. With PodSecurity empty, it also
	// lifts the default checks (capabilities beyond the baseline set, seccomp Unconfined).
	AllowPrivileged bool `json:"allowPrivileged,omitempty"`
	// PodSecurity is the Pod Security Standards level pods must meet, checked with the API
	// server's own PodSecurity checks and messages (k8s.io/pod-security-admission, version
	// "latest"): podsecurity.Privileged, podsecurity.Baseline or podsecurity.Restricted. Empty
	// applies two of baseline's checks unless AllowPrivileged is set: a capability outside
	// the baseline set in capabilities.add, and seccompProfile Unconfined, are refused.
	// Refusals are *podsecurity.Error. The level does not lift the other gates
	// (AllowPrivileged, AllowHostNamespaces, AllowedUnsafeSysctls).
	PodSecurity podsecurity.Level `json:"podSecurity,omitempty"`
	// AllowedCapabilities are capabilities containers may add beyond the baseline set,
	// whatever PodSecurity is: names with or without CAP_, in any case ("NET_ADMIN"), or
	// "ALL" for every one.
	AllowedCapabilities []string `json:"allowedCapabilities,omitempty"`
	// AllowHostNamespaces lets pods set HostPID and HostIPC (the kubelet's former
	// --host-pid-sources and --host-ipc-sources). Without it such pods are refused. HostNetwork
	// is not gated by it.
	AllowHostNamespaces bool `json:"allowHostNamespaces,omitempty"`
	// PauseBinary is the pause process of pods with ShareProcessNamespace: a statically linked
	// catatonit (run as "catatonit -P"). Empty looks up catatonit in PATH, then
	// /usr/libexec/podman/catatonit. Other pods need none.
	PauseBinary string `json:"pauseBinary,omitempty"`
	// AllowedUnsafeSysctls are namespaced sysctls beyond the kubelet's safe set that pods may
	// set: names, or prefixes ending in "*" ("net.core.*"), as the kubelet's
	// --allowed-unsafe-sysctls.
	AllowedUnsafeSysctls []string `json:"allowedUnsafeSysctls,omitempty"`
	// HostIPs are the host's addresses that env variables of pods read (EnvVar.From
	// status.hostIP(s); and status.podIP(s) with HostNetwork), as the node's addresses
	// under a kubelet: at most one per IP family. Empty means the host's first global unicast
	// IPv4 address, else its first global unicast IPv6 one, read when a container is created.
	HostIPs []netip.Addr `json:"hostIPs,omitempty"`
	// AllowPrivilegeEscalationByDefault gives the kubelet's no_new_privs rule: a container
	// whose allowPrivilegeEscalation is unset may gain privileges (setuid binaries, file
	// capabilities), and no_new_privs is set only when the field is false. Without it podlife
	// hardens the default: unset means false (no_new_privs) unless the container is privileged
	// or adds CAP_SYS_ADMIN. A node that stands in for a kubelet sets it (podlife-node does),
	// so that pods behave as on any node; the conformance spec "should allow privilege
	// escalation when not explicitly set and uid != 0" expects it.
	AllowPrivilegeEscalationByDefault bool `json:"allowPrivilegeEscalationByDefault,omitempty"`
	// SeccompProfileRoot is the directory Localhost seccomp profiles are read from (the
	// kubelet's is /var/lib/kubelet/seccomp). Empty refuses Localhost profiles.
	SeccompProfileRoot string `json:"seccompProfileRoot,omitempty"`
}

// EmbeddedConfig configures the private containerd of the embedded default: the containerd
// that podlife runs for a state directory when no system containerd answers.
//
// It belongs to the state directory, not to a process. Its files are under
// StateDir/containerd: root and state (images, snapshots, containers), the config.toml podlife
// writes, the socket containerd.sock (how every process finds it again), containerd.pid, and its
// output in containerd.log (moved to containerd.log.1 past 16 MiB at a start). The first New that
// needs it starts it detached (a session of its own, no parent-death signal), under an flock on
// StateDir/containerd/start.lock so that of several processes starting at once exactly one
// starts it; the others wait, then use it. Every Runtime of that state dir, in any process, uses
// it; none stops it, on Close or on exit, so pods of other processes never lose it.
//
// If it dies, a Runtime that uses it starts it again on the same root and state when it
// reconnects (and any New does): the shims of running containers survive and containerd
// reloads them. daemon.StopPrivate (the CLI's `podlife daemon stop`) stops it once no pod is
// left in the state dir.
type EmbeddedConfig struct {
	// Disable fails New when no containerd answers, instead of using or starting the private one.
	Disable bool `json:"disable,omitempty"`
	// Binary is the containerd binary used to start it; empty looks "containerd" up in PATH. A
	// running private containerd is used whatever binary started it.
	Binary string `json:"binary,omitempty"`
	// IgnoreSystem uses the private containerd even when a system containerd answers at
	// DefaultAddress: that socket is not tried (nor touched). The Runtime then behaves as on a
	// host without a system daemon: it starts the private containerd if none runs, starts it
	// again if it dies, and PrivateDaemon reports true. It excludes Config.Address and Disable.
	IgnoreSystem bool `json:"ignoreSystem,omitempty"`
}

// withDefaults returns a copy with the defaults filled in: the Config's one defaulting pass,
// run once by New; nothing after it re-defaults a Config field.
func (c Config) withDefaults() Config {
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if c.StateDir == "" {
		c.StateDir = DefaultStateDir
	}
	if c.RuntimeName == "" {
		c.RuntimeName = defaultRuntime
	}
	if c.Shims == "" {
		c.Shims = ShimPerPod
	}
	if c.PodsPerShim == 0 {
		c.PodsPerShim = 10
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Bridge.StateDir == "" {
		c.Bridge.StateDir = filepath.Join(c.StateDir, "cni")
	}
	c.Logs = c.Logs.withDefaults()
	if bo := c.ImagePullBackOff; bo != nil {
		d := bo.withPullDefaults()
		c.ImagePullBackOff = &d
	}
	if len(c.RuntimeClasses) > 0 {
		classes := make(map[string]RuntimeClass, len(c.RuntimeClasses))
		for name, rc := range c.RuntimeClasses {
			classes[name] = runtimeclass.WithDefaults(rc, c.RuntimeName)
		}
		c.RuntimeClasses = classes
	}
	return c
}

// Validate reports what is wrong with the configuration, naming the field.
func (c Config) Validate() error {
	var errs []error
	if c.StateDir != "" && !filepath.IsAbs(c.StateDir) {
		errs = append(errs, fmt.Errorf("config.stateDir: %q must be an absolute path", c.StateDir))
	}
	switch c.Shims {
	case "", ShimPerPod, ShimPerContainer, ShimShared:
	default:
		errs = append(errs, fmt.Errorf("config.shims: unsupported value %q: supported values: %q, %q, %q", c.Shims, ShimPerPod, ShimPerContainer, ShimShared))
	}
	if c.PodsPerShim < 0 {
		errs = append(errs, fmt.Errorf("config.podsPerShim: %d must not be negative", c.PodsPerShim))
	}
	if c.PauseBinary != "" && !filepath.IsAbs(c.PauseBinary) {
		errs = append(errs, fmt.Errorf("config.pauseBinary: %q must be an absolute path", c.PauseBinary))
	}
	if c.ContainerLogger != "" && !filepath.IsAbs(c.ContainerLogger) {
		errs = append(errs, fmt.Errorf("config.containerLogger: %q must be an absolute path", c.ContainerLogger))
	}
	if c.ExecGate != "" && !filepath.IsAbs(c.ExecGate) {
		errs = append(errs, fmt.Errorf("config.execGate: %q must be an absolute path", c.ExecGate))
	}
	if c.SeccompProfileRoot != "" && !filepath.IsAbs(c.SeccompProfileRoot) {
		errs = append(errs, fmt.Errorf("config.seccompProfileRoot: %q must be an absolute path", c.SeccompProfileRoot))
	}
	for i, p := range c.AllowedUnsafeSysctls {
		if api.SysctlNamespace(api.SysctlDots(strings.TrimSuffix(p, "*"))) == "" {
			errs = append(errs, fmt.Errorf("config.allowedUnsafeSysctls[%d]: %q is not a namespaced sysctl (net.*, kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*)", i, p))
		}
	}
	for i, ip := range c.HostIPs {
		if !ip.IsValid() {
			errs = append(errs, fmt.Errorf("config.hostIPs[%d]: not an IP address", i))
		}
	}
	if _, err := eviction.ParseThreshold(c.Eviction.NodefsAvailable); err != nil {
		errs = append(errs, fmt.Errorf("config.eviction.nodefsAvailable: %w", err))
	}
	errs = append(errs, runtimeclass.Validate(c.RuntimeClasses)...)
	errs = append(errs, c.validatePodSecurity()...)
	if c.Address != "" && !filepath.IsAbs(c.Address) {
		errs = append(errs, fmt.Errorf("config.address: %q must be an absolute socket path", c.Address))
	}
	if c.Embedded.IgnoreSystem && (c.Address != "" || c.Embedded.Disable) {
		errs = append(errs, errors.New("config.embedded.ignoreSystem: uses the private containerd, so excludes config.address and config.embedded.disable"))
	}
	if err := c.Logs.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	return nil
}

// Backoff is the crash-loop back-off curve: the first restart is immediate, then Initial after
// the container's exit, doubling up to Max; an entry is reset once the container ran ResetAfter.
type Backoff struct {
	Initial    time.Duration `json:"initial,omitempty"`
	Max        time.Duration `json:"max,omitempty"`
	ResetAfter time.Duration `json:"resetAfter,omitempty"`
}
