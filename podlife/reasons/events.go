package reasons

import (
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/eviction"
)

// Event reasons the kubelet reports, with its reason and message shape. Each value is the
// constant's name unless its comment gives another.
const (
	// Pulling: an image pull started.
	Pulling = api.ReasonPulling
	// Pulled: an image is present (pulled, or already there).
	Pulled = api.ReasonPulled
	// Failed: a pull, create or start failed (Warning).
	Failed = api.ReasonFailed
	// ErrImageNeverPull: the image is missing and the pull policy is Never (Warning); also a
	// container's waiting reason.
	ErrImageNeverPull = api.ReasonErrImageNeverPull
	// Created: a container was created.
	Created = api.ReasonCreated
	// Started: a container's process started.
	Started = api.ReasonStarted
	// Killing: a container is being stopped.
	Killing = api.ReasonKilling
	// BackOff: an exited container waits for its crash-loop back-off before it restarts
	// (Warning).
	BackOff = api.ReasonBackOff
	// Unhealthy: a probe failed (Warning).
	Unhealthy = api.ReasonUnhealthy
	// ProbeWarning: a probe succeeded with a warning (Warning).
	ProbeWarning = api.ReasonProbeWarning
	// DeadlineExceeded: the pod ran longer than its activeDeadlineSeconds; also its failure
	// reason.
	DeadlineExceeded = api.ReasonDeadlineExceeded
	// FailedPostStartHook: a postStart hook failed (Warning).
	FailedPostStartHook = api.ReasonFailedPostStartHook
	// FailedPreStopHook: a preStop hook failed (Warning).
	FailedPreStopHook = api.ReasonFailedPreStopHook
	// LifecycleFallback ("LifecycleHTTPFallback", hook.ReasonLifecycleHTTPFallback): an HTTP
	// lifecycle hook fell back from HTTPS to HTTP, as the kubelet's (Warning).
	LifecycleFallback = api.ReasonLifecycleFallback
	// FailedCreateSandbox ("FailedCreatePodSandBox"): the pod's sandbox (namespaces, network)
	// could not be set up (Warning).
	FailedCreateSandbox = api.ReasonFailedCreateSandbox
	// SandboxChanged: the pod's sandbox died. In podlife only a pod's pause
	// (ShareProcessNamespace) can: the pod is stopped and fails with this reason, where the
	// kubelet would recreate the sandbox (Warning).
	SandboxChanged = api.ReasonSandboxChanged
	// Evicted: the pod went over a local storage limit and was evicted (also its failure
	// reason), or a new pod was refused under disk pressure (Warning).
	Evicted api.Reason = eviction.Reason
)

// Event reasons of podlife's own, for moments the kubelet does not report. Each value is the
// constant's name unless its comment gives another.
const (
	// SandboxReady: the pod's namespaces are pinned and its network attached.
	SandboxReady = api.ReasonSandboxReady
	// PostStartCompleted ("PostStartHookCompleted"): a postStart hook returned successfully.
	PostStartCompleted = api.ReasonPostStartCompleted
	// Exited: a container's process exited.
	Exited = api.ReasonExited
	// Stopped: every container of the pod stopped and its network was released.
	Stopped = api.ReasonStopped
	// Removed: everything of the pod was deleted.
	Removed = api.ReasonRemoved
	// EventsDropped: a slow subscriber missed events.
	EventsDropped = api.ReasonEventsDropped
	// ContainerdUnavailable: containerd stopped answering; the containers are left as they are
	// while the runtime reconnects (Warning).
	ContainerdUnavailable = api.ReasonContainerdUnavailable
	// ContainerdRecovered: containerd answers again; the containers are followed again.
	ContainerdRecovered = api.ReasonContainerdRecovered
	// StartPolicyAbandoned: the start policy had not returned when a stop cancelled it; the
	// stop went on without it, and the policy can start nothing more (Warning).
	StartPolicyAbandoned = api.ReasonStartPolicyAbandoned
	// Adopted: a process took over the pod's supervision (Runtime.Adopt).
	Adopted = api.ReasonAdopted
	// StartedFromPool: Run started the pod from a warm pool member (Runtime.Prewarm): its
	// sandbox and containers were made before, only its processes started.
	StartedFromPool = api.ReasonStartedFromPool
	// Resized: a container's resources were changed in place (Pod.Resize).
	Resized = api.ReasonResized
	// RestartAllContainersStarted: the reason of the AllContainersRestarting condition while
	// it is True (a restart rule's RestartAllContainers action matched).
	RestartAllContainersStarted = api.ReasonRestartAllContainersStarted
	// StartInterrupted: the adopted pod's start sequence had not finished when its manager
	// died; it is stopped and left for Remove.
	StartInterrupted = api.ReasonStartInterrupted
	// LogsNotFollowed: the adopted pod's containers wrote their output to the previous manager
	// (no Config.ContainerLogger): nothing logs their current attempts.
	LogsNotFollowed = api.ReasonLogsNotFollowed
)
